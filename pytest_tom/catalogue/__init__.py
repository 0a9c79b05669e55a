"""Which suites there are and how a file becomes one: reading a suite file, the bundled
suites, the benchmarks `pytest-tom fetch` downloads, and the names `--tom-suite` takes."""
