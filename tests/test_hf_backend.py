"""`hf:PATH` on a real model: the embedded SmolLM2-135M saved as a Hugging Face directory
by `pytest-tom hf-model` once per test session, for every xdist worker (tests/hf_support.py,
tests/shared_artifacts.py). The bundled generic suite, answers identical at batch 1 and 8
and under `-n 2`, a second run from the cache, the families' answer lengths, a thinking
template, the usage errors (no extra, no directory).

The in-process runs of one process share one loaded model (one per model directory):
`pytest_tom.backends.hf`, which keeps it, is imported here, so that pytester's in-process
runs do not drop it with the modules they imported."""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SUITES, header_budgets, load_report
from hf_support import NAME, NAME_MAPS, OUTPUT, PARSES, missing, run_the_command_in
from shared_artifacts import shared_artifact

from pytest_tom.backends import hf as hf_backend
from pytest_tom.backends.hf_from_gguf import parsed_once
from pytest_tom.cli import main

GENERIC = SUITES / "generic" / "classic-false-belief.tom.yaml"


@pytest.fixture(scope="session")
def hf_model_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder where `pytest-tom hf-model smollm2` ran, once for the session: the model
    directory `smollm2` and the command's output `hf-model.out`."""
    absent = missing()
    if absent:
        pytest.skip(f"the hf test model needs {', '.join(absent)} (pip install 'pytest-tom[hf]')")
    return shared_artifact(tmp_path_factory, "hf-model-smollm2", run_the_command_in)


@pytest.fixture(scope="session")
def smollm2_dir(hf_model_folder: Path) -> Path:
    return hf_model_folder / NAME


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread() -> Iterator[None]:
    """torch computes on one thread in this module's in-process runs (the `-n 2` run's
    workers get `--tom-threads=1`), as many threads as cores again after it. Under `-n 2`
    two processes with torch's default (one spinning thread per core) fight over 2 cores:
    the printed command's run took 18 s with the default and 10 s on one thread at load 6,
    and 260 s under `-n 2` at load 7-10. The answers compared are all made on one thread."""
    if missing():
        yield
        return
    import torch  # noqa: PLC0415 optional (hf extra), heavy: only where the model runs

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def responses(report: Path) -> dict[str, list[str]]:
    return {r["item"]["id"]: r["responses"] for r in load_report(report)["items"]}


# 20-40 s on 2 cores at load 4-8 (and the session's model conversion, 10-15 s, when it
# runs first): 8 greedy generations one at a time, then as one batch of 8, on one torch
# thread, then 4 of them again under `-n 2` (three processes, two of which load torch and
# the model). The cost is mostly the prompts (133-190 tokens each): the 8 items are two
# scenarios less one question each ('told', 'who_knows'), fewer would leave no full batch;
# 16 tokens end rows at EOS (4-15 tokens) and cut one off, so the batch pads rows of
# different lengths, prompts and answers
@pytest.mark.slow
def test_hf_answers_the_bundled_suite_the_same_at_batch_1_and_8_under_xdist_and_from_cache(
        pytester: pytest.Pytester, smollm2_dir: Path) -> None:
    (pytester.path / GENERIC.name).write_text(GENERIC.read_text(encoding="utf-8"),
                                              encoding="utf-8")
    common = [f"--tom-model=hf:{smollm2_dir}", "--tom-limit=8", "--tom-max-tokens=16",
              "--tom-early-stop=off", "-p", "no:cacheprovider", "-k",
              "not told and not who_knows"]
    # in process: the model is loaded once for the three runs (one per process)
    one = pytester.runpytest(*common, "--tom-batch-size=1", "--tom-report=b1.json")
    assert one.ret in (0, 1), one.stdout.str()  # right or wrong answers, never an error
    device = hf_backend.default_device()
    loaded = hf_backend.loaded_model(hf_backend.LoadSpec(
        str(smollm2_dir.resolve()), None, device, "float32" if device == "cpu" else "auto"))
    load_seconds = loaded.load_seconds
    assert load_seconds is not None  # this process's model, kept after the run
    one.stdout.fnmatch_lines([f"tom: model hf:{smollm2_dir} (one worker thread (not "
                              f"thread-safe); {smollm2_dir} rev * · float32 on cpu · "
                              f"transformers *) · *cache on"])
    eight = pytester.runpytest(*common, "--tom-batch-size=8", "--tom-cache=write",
                               "--tom-report=b8.json")
    eight.stdout.fnmatch_lines(["tom: model hf:* (one worker thread (not thread-safe), "
                                "batches of 8; *"])
    first, batched = responses(pytester.path / "b1.json"), responses(pytester.path / "b8.json")
    assert len(first) == 8 and first == batched
    assert all(texts and texts[0].strip() for texts in first.values())
    report = load_report(pytester.path / "b8.json")
    # answers that ran past 16 tokens are cut off (finish "length"), never an error; the
    # batches held rows of both kinds
    assert all(r["outcome"]["error"] in (None, "unparseable", "cut_off") for r in report["items"])
    assert {r.get("finish", ["stop"])[0] for r in report["items"]} == {"stop", "length"}
    # the weights are the GGUF's (as `pytest-tom hf-model` wrote them): some answers are
    # right, where random weights would write no parseable answer at all
    assert any(r["outcome"]["correct"] for r in report["items"])
    assert sum(r["requests"] for r in report["items"]) == len(first)  # nothing from the cache
    assert str(smollm2_dir) in report["settings"]["model"]
    assert " rev " in report["settings"]["backend"]["identity"]
    # the same again with the cache on: every answer from it, the same answers
    again = pytester.runpytest(*common, "--tom-report=b0.json")
    cached = load_report(pytester.path / "b0.json")
    assert responses(pytester.path / "b0.json") == first
    assert all(r["cached"] and not r["requests"] for r in cached["items"]), cached["items"][0]
    assert again.ret == one.ret
    assert loaded.load_seconds == load_seconds  # the second and third runs loaded nothing
    # `-n 2` (one scenario's 4, cache off): each worker loads the model in its own process and
    # answers its share in its own batches; the answers (greedy) are those of the run in
    # one process at batch 1, every item asked exactly once. The controller runs in
    # process (it loads no model), the workers are fresh processes on one torch thread.
    split = pytester.runpytest(*common[:-1], "almonds and not told", "--tom-cache=off",
                               "--tom-threads=1", "-n", "2", "-v", "--tom-report=two.json")
    assert split.ret in (0, 1), split.stdout.str()[-3000:]
    report = load_report(pytester.path / "two.json")
    shared = responses(pytester.path / "two.json")
    assert len(shared) >= 4 and shared == {k: first[k] for k in shared}
    alone = {r["item"]["id"]: r["outcome"] for r in load_report(pytester.path / "b1.json")
             ["items"]}
    assert {r["item"]["id"]: r["outcome"] for r in report["items"]} == \
        {k: alone[k] for k in shared}  # scored the same: right, wrong, cut off
    assert [r["requests"] for r in report["items"]] == [1] * len(report["items"])
    workers = {m.group(1) for line in split.outlines
               if (m := re.match(r"\[(gw\d)\] .*(PASSED|FAILED|XFAIL)", line))}
    assert workers == {"gw0", "gw1"}, split.stdout.str()[-3000:]  # both workers ran items


@pytest.mark.slow
def test_hf_takes_the_families_answer_lengths(pytester: pytest.Pytester,
                                              smollm2_dir: Path) -> None:
    (pytester.path / GENERIC.name).write_text(GENERIC.read_text(encoding="utf-8"),
                                              encoding="utf-8")
    result = pytester.runpytest(f"--tom-model=hf:{smollm2_dir}", "--co",
                                "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["tom: model hf:*max_tokens * per answer*"])
    budgets = header_budgets(result.stdout.str())
    assert (budgets["generic"], budgets["bigtom"], budgets["opentom"]) == (128, 64, 64)


@pytest.mark.slow
def test_hf_model_writes_a_directory_and_its_printed_command_runs(
        hf_model_folder: Path, pytester: pytest.Pytester,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33 point 7: the offline route to a transformers directory for `hf:`, as a user
    runs it: `pytest-tom hf-model smollm2` in an empty folder (the session fixture ran it
    there, once for all the hf: tests, which load what it wrote), then the line it printed,
    run as given from a folder holding `smollm2`, then the command again: refused."""
    model = hf_model_folder / NAME
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in
                                                                       model.iterdir()}
    assert "chat_template" in (model / "tokenizer_config.json").read_text() or \
        (model / "chat_template.jinja").is_file()
    head, _, printed = (hf_model_folder / OUTPUT).read_text(encoding="utf-8").partition(
        "run it with: ")
    assert head.startswith("wrote smollm2: SmolLM2-135M-Instruct as a transformers directory")
    command = shlex.split(printed)
    assert command[:2] == ["pytest", "--tom-suite=generic"]
    (pytester.path / NAME).symlink_to(model, target_is_directory=True)
    # in process: the same command line as `pytest ...` in a shell, and the model this
    # process already loaded (hf: resolves the link to the same directory)
    run = pytester.runpytest(*command[1:])
    assert run.ret == 0, run.stdout.str()[-3000:]
    out = run.stdout.str()
    assert "tom: model hf:smollm2 (" in out and "tom totals:" in out
    assert " 0 errors" in out
    # a second time into the same folder: refused, nothing written over
    written = {p.name: p.stat().st_mtime_ns for p in model.iterdir()}
    capsys.readouterr()
    assert main(["hf-model", NAME]) == 2
    assert "smollm2 exists and is not an empty folder: give a new one" in capsys.readouterr().err
    assert {p.name: p.stat().st_mtime_ns for p in model.iterdir()} == written


def test_hf_model_parsed_the_gguf_file_once(hf_model_folder: Path) -> None:
    """transformers opens the file for the config, the weights and the tokenizer: one parse
    (about 3.6 s of CPU each), and asks for gguf's table of tensor names once per module of
    the model: one table (about 5 s of CPU for all 397), counted while the session's
    `pytest-tom hf-model` ran."""
    assert (hf_model_folder / PARSES).read_text(encoding="utf-8") == "1"
    assert (hf_model_folder / NAME_MAPS).read_text(encoding="utf-8") == "1"


def value(reader: Any) -> int:
    """The file's `test.value`, read as gguf 0.11 (the oldest allowed) has it: the field's
    part that holds its data (`ReaderField.contents()` came later)."""
    field = reader.fields["test.value"]
    return int(field.parts[field.data[0]][0])


def test_parsed_once_shares_one_reader_per_file_and_one_name_table_while_inside(tmp_path: Path) -> None:
    if missing()[2:3]:
        pytest.skip("gguf is not installed")
    import gguf  # noqa: PLC0415 optional (hf extra)

    files = []
    for name in ("a", "b"):
        writer = gguf.GGUFWriter(tmp_path / f"{name}.gguf", arch="llama")
        writer.add_uint32("test.value", len(name) + len(files))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        files.append(tmp_path / f"{name}.gguf")
    original, original_map = gguf.GGUFReader, gguf.get_tensor_name_map
    llama = gguf.MODEL_ARCH.LLAMA
    with parsed_once() as readers:
        first = gguf.GGUFReader(files[0])
        assert gguf.GGUFReader(str(tmp_path / "." / "a.gguf")) is first  # the same file
        other = gguf.GGUFReader(files[1])
        assert other is not first and value(other) == 2
        assert value(first) == 1
        assert len(readers) == 2
        table = gguf.get_tensor_name_map(llama, 2)
        assert gguf.get_tensor_name_map(llama, 2) is table  # one table per (arch, blocks)
        assert table.get_name("model.layers.1.self_attn.q_proj") == "blk.1.attn_q"
        three = gguf.get_tensor_name_map(llama, 3)
        assert three is not table and three.get_name("model.layers.2.mlp.up_proj") == \
            "blk.2.ffn_up"
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (original, original_map)  # restored
    assert gguf.GGUFReader(files[0]) is not first
    assert gguf.get_tensor_name_map(llama, 2) is not table
    with pytest.raises(RuntimeError), parsed_once():
        raise RuntimeError("restored on errors too")
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (original, original_map)


def test_hf_model_refuses_a_folder_that_is_not_empty_before_loading_anything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    assert main(["hf-model", str(tmp_path)]) == 2
    assert f"{tmp_path} exists and is not an empty folder" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_hf_without_the_extra_is_a_usage_error_with_the_pip_command(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """In process, transformers made unimportable for the run (None in sys.modules: `import
    transformers` raises ImportError, as when it is not installed), put back afterwards."""
    monkeypatch.setitem(sys.modules, "transformers", None)
    pytester.mkdir("model")
    result = pytester.runpytest("--tom-model=hf:model", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*transformers is not installed: pip install 'pytest-tom?hf?'*"])


def test_hf_needs_a_model_directory(pytester: pytest.Pytester) -> None:
    if missing()[:2]:
        pytest.skip("transformers is not installed")
    pytester.mkdir("empty")
    result = pytester.runpytest("--tom-model=hf:empty", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*hf:empty: *empty is not a model directory (no config.json)*"])
    result = pytester.runpytest("--tom-model=hf:./nowhere/model", "-p", "no:cacheprovider")
    result.stderr.fnmatch_lines(["*hf:./nowhere/model: no model directory at*"])


# -- a model that thinks ---------------------------------------------------------------------
# a chat template whose generation prompt opens the thought (as DeepSeek-R1's does) and,
# asked not to think, closes it empty (as Qwen3's does)
THINKING_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n"
    "{% if enable_thinking is defined and enable_thinking is false %}</think>\n\n{% endif %}"
    "{% endif %}")


def thinking_dir(source: Path, target: Path) -> Path:
    """`source`'s model with THINKING_TEMPLATE (its files linked, the template written)."""
    target.mkdir()
    for file in source.iterdir():
        if file.name == "tokenizer_config.json":
            config = json.loads(file.read_text(encoding="utf-8"))
            config.pop("chat_template", None)
            (target / file.name).write_text(json.dumps(config), encoding="utf-8")
        elif file.name != "chat_template.jinja":
            (target / file.name).symlink_to(file)
    (target / "chat_template.jinja").write_text(THINKING_TEMPLATE, encoding="utf-8")
    return target


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["item"]["id"]: r for r in report["items"]}


@pytest.mark.slow
def test_hf_splits_the_thought_its_template_opened_and_keeps_it_in_cache_and_replay(
        pytester: pytest.Pytester, smollm2_dir: Path) -> None:
    """The template opens `<think>`; SmolLM2 never writes `</think>`, so the tags are set to
    `<think>,.`: the first sentence of its reply is the thought (a lone closing tag), the
    rest the answer. The same greedy text read with the tags off is thought + "." + answer."""
    model = thinking_dir(smollm2_dir, pytester.path / "thinker")
    (pytester.path / GENERIC.name).write_text(GENERIC.read_text(encoding="utf-8"),
                                              encoding="utf-8")
    common = [f"--tom-model=hf:{model}", "--tom-limit=6", "--tom-max-tokens=16",
              "--tom-items=report", "--tom-early-stop=off", "-p", "no:cacheprovider"]
    whole = pytester.runpytest(*common, "--tom-thinking=on", "--tom-think-tags=off",
                               "--tom-cache=off", "--tom-report=whole.json")
    assert whole.ret == 0, whole.stdout.str()[-3000:]
    split = pytester.runpytest(*common, "--tom-thinking=on", "--tom-think-tags=<think>,.",
                               "--tom-report=split.json", "--tom-record=split.jsonl")
    assert split.ret == 0, split.stdout.str()[-3000:]
    texts, parts = by_id(load_report(pytester.path / "whole.json")), \
        by_id(load_report(pytester.path / "split.json"))
    assert texts.keys() == parts.keys() and len(texts) >= 5
    shown = cut_off = 0
    for key, rec in parts.items():
        text = texts[key]["responses"][0]
        assert "thoughts" not in texts[key]  # tags off: never split
        thought, closed, answer = text.partition(".")
        if closed:
            shown += 1
            assert rec["thoughts"] == [thought.strip() or None]
            assert rec["responses"] == [answer.strip()]
            assert rec["usage"]["reasoning_tokens"] > 0
        else:
            assert rec["responses"] == [text] and rec.get("thoughts", [None]) == [None]
        # stopped at max_new_tokens without end of sequence: cut off, in both readings
        assert rec.get("finish", ["stop"]) == texts[key].get("finish", ["stop"])
        cut = rec.get("finish") == ["length"]
        assert (rec["outcome"]["error"] == "cut_off") == cut
        assert not cut or rec["usage"]["completion_tokens"] == 16
        cut_off += cut
    assert shown >= 2, [t["responses"] for t in texts.values()]
    assert cut_off >= 1, [t["responses"] for t in texts.values()]  # 16 tokens cut one off
    # --tom-thinking=off reaches the template: it closes the thought in the prompt (the
    # prompts are the subject: two of them, one token generated each, the later option wins)
    off = pytester.runpytest(*common, "--tom-thinking=off", "--tom-cache=off",
                             "--tom-max-tokens=1", "-k", "almonds and (reality or told)",
                             "--tom-report=off.json")
    assert off.ret == 0
    closed_prompt = {k: r["usage"]["prompt_tokens"] - parts[k]["usage"]["prompt_tokens"]
                     for k, r in by_id(load_report(pytester.path / "off.json")).items()}
    assert len(closed_prompt) == 2 and len(set(closed_prompt.values())) == 1
    assert next(iter(closed_prompt.values())) > 0
    # the cache and a replay give both parts back
    pytester.runpytest(*common, "--tom-thinking=on", "--tom-think-tags=<think>,.",
                       "--tom-report=cached.json")
    cached = by_id(load_report(pytester.path / "cached.json"))
    # (the budget given again: a cut-off answer's outcome names it)
    replayed = pytester.runpytest(str(GENERIC), "--tom-model=replay:split.jsonl", "--tom-limit=6",
                                  "--tom-max-tokens=16", "--tom-items=report", "-p",
                                  "no:cacheprovider", "--tom-report=replay.json")
    assert replayed.ret == 0
    for again in (cached, by_id(load_report(pytester.path / "replay.json"))):
        assert {k: (r.get("thoughts"), r["responses"], r.get("finish"), r["outcome"])
                for k, r in again.items()} == \
            {k: (r.get("thoughts"), r["responses"], r.get("finish"), r["outcome"])
             for k, r in parts.items()}
    assert all(r["cached"] and not r["requests"] for r in cached.values())
