"""Bytecode of the measured checkout, as an installed pytest-tom has it.

`pip install pytest-tom` compiles the package's bytecode when it installs the wheel, so a
user's pytest process (and the worker path's child process) loads it ready. A checkout on
PYTHONPATH has none until Python writes it, and Python does not write it at all under
PYTHONDONTWRITEBYTECODE (set on the development machine): every process would compile
the ~200 modules of an active run again, about a second of start-up a user never pays.
The benchmarks that start pytest-tom processes compile the checkout first, into its own
`__pycache__` folders (ignored by git), and print that they did.
"""

from __future__ import annotations

import compileall
from pathlib import Path


def compile_checkout(checkout: Path) -> str:
    """Compile `checkout`'s pytest_tom package (as pip does at install); what to print."""
    ok = compileall.compile_dir(str(checkout / "pytest_tom"), quiet=1, workers=0)
    return ("pytest-tom bytecode compiled before timing, as an install has it" if ok
            else "pytest-tom bytecode: compiling failed, processes compile as they import")
