"""How a run asks the model: the runner (concurrency, the adaptive limit, the request
loop), each call's retries and deadline, the response cache, the early stop, and what a
request carries (answer length, the thinking budget)."""
