"""`openai:`, any OpenAI-compatible chat-completions endpoint: the backend and its two
request paths (the worker's own POST in a child process, the openai client), the
connections they open, the headers they send, and a pool of several endpoints."""
