"""Converters from upstream benchmark files to pytest-tom suites (one module per source).

Each module exposes `add_arguments(parser)` and `run(args) -> int`; the
`pytest-tom convert <name>` command finds it by name. Converters write YAML
suites (safe dump) and never copy upstream files into the project.
"""
