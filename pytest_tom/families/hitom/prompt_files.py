"""`pytest-tom convert hitom ... --prompts PATH`: the authors' prompt wording, read from the
user's own copy of their prompt files, for the converted suite's `defaults.prompt`.

pytest-tom ships its own wording for the two prompting styles and the note
(`prompts.OWN`). Whoever wants the authors' exact words downloads their prompt files
(`Hi-ToM_prompts/` of ying-hui-he/Hi-ToM_dataset: one file per question, under folders
`Tell|No_Tell/MC|CoT/length_L/sample_N/`) and points `--prompts` at that folder, at any
folder below it, or at one file of each style (`--prompts` may be given more than once).

Nothing here knows the authors' sentences; a prompt file is read by its layout: line 1 is
the instruction line, and the note runs from the line starting with `Note:` to the next
blank line (or the end of the file). A file's style comes from its folders (the
release's `MC` holds the VP prompts, `CoT` the CoTP ones; `VP` and `CoTP` are read too),
else from the data: a file whose first line is the line the release's VP rows carry
before their story is VP, any other CoTP. Every VP file must have one instruction line,
every CoTP file another, and all of them one note; a file that disagrees is named.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from .prompts import COTP
from .prompts import STYLE_LABEL
from .prompts import STYLES
from .prompts import VP
from .schema import HiToMPrompt

NOTE_START = "Note:"
STYLE_FOLDERS = {"mc": VP, "vp": VP, "cot": COTP, "cotp": COTP}
OPTION = "--prompts"


@dataclass(frozen=True)
class PromptFile:
    path: Path
    style: str | None  # None: its folders do not say
    instruction: str
    note: str


@dataclass(frozen=True)
class AuthorsPrompts:
    """What `defaults.prompt` gets, and from how many files it was read."""

    vp: str
    cotp: str
    note: str
    files: int

    def defaults(self) -> HiToMPrompt:
        return {"vp": self.vp, "cotp": self.cotp, "note": self.note}


def files_of(paths: list[Path]) -> tuple[list[tuple[Path, str | None]], list[str]]:
    """(file, style its folders give) for each prompt file under `paths`; problems."""
    out: list[tuple[Path, str | None]] = []
    problems = []
    for root in paths:
        if root.is_dir():
            found = sorted(p for p in root.rglob("*.txt") if p.is_file())
            if not found:
                problems.append(f"{OPTION} {root}: no .txt file in this folder or below; give "
                                f"the folder of the authors' prompt files (Hi-ToM_prompts/)")
            for path in found:
                folders = [root.name, *path.relative_to(root).parts[:-1]]
                out.append((path, _style_of_folders(folders)))
        elif root.is_file():
            out.append((root, _style_of_folders([root.parent.name])))
        else:
            problems.append(f"{OPTION} {root}: no such file or folder")
    return out, problems


def _style_of_folders(folders: list[str]) -> str | None:
    for name in reversed(folders):
        if name.lower() in STYLE_FOLDERS:
            return STYLE_FOLDERS[name.lower()]
    return None


def read_file(path: Path, style: str | None) -> PromptFile | str:
    """The instruction line and note of one prompt file, or the problem with it."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        return f"{path}: not UTF-8 text ({exc.reason}); is this one of the authors' prompt files?"
    except OSError as exc:
        return f"{path}: cannot be read ({exc.strerror})"
    if not lines or not lines[0].strip():
        return (f"{path}:1: the first line is empty; a prompt file begins with its "
                f"instruction line")
    start = next((i for i, line in enumerate(lines) if line.startswith(NOTE_START)), None)
    if start is None:
        return (f"{path}: no line starts with {NOTE_START!r}; is this one of the authors' "
                f"prompt files (Hi-ToM_prompts/...)?")
    if start == 0:
        return f"{path}:1: the note is the first line; where is the instruction line?"
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    note = "\n".join(line.rstrip() for line in lines[start:end])
    return PromptFile(path, style, lines[0].strip(), note)


def read_prompts(paths: list[Path], vp_line: str | None) -> AuthorsPrompts | list[str]:
    """The authors' wording from the prompt files under `paths` (`vp_line`: the line the
    data's VP rows carry before their story, None when they carry none), or the problems."""
    found, problems = files_of(paths)
    files: list[PromptFile] = []
    for path, style in found:
        read = read_file(path, style)
        if isinstance(read, str):
            problems.append(read)
        else:
            files.append(read)
    if problems:
        return problems
    lines: dict[str, dict[str, list[Path]]] = {s: defaultdict(list) for s in STYLES}
    notes: dict[str, list[Path]] = defaultdict(list)
    for f in files:
        style = f.style
        if style is None and vp_line is not None:
            style = VP if f.instruction == vp_line else COTP
        if style is None:
            problems.append(f"{f.path}: is it a VP or a CoTP prompt? Its folders do not say "
                            f"(the release keeps them under MC/ and CoT/) and the data's VP "
                            f"rows carry no one instruction line to compare; put it in a "
                            f"folder named VP or CoTP")
            continue
        lines[style][f.instruction].append(f.path)
        notes[f.note].append(f.path)
    for style in STYLES:
        label = STYLE_LABEL[style]
        if not lines[style] and not problems:
            problems.append(f"{OPTION}: no {label} prompt file among the {len(files)} read; "
                            f"give the folder that holds both styles (Hi-ToM_prompts/) or "
                            f"one file of each")
        problems += _disagree(f"the {label} prompt files' first lines", lines[style])
    problems += _disagree("the prompt files' notes", notes)
    if problems:
        return problems
    return AuthorsPrompts(next(iter(lines[VP])), next(iter(lines[COTP])), next(iter(notes)),
                          len(files))


def _disagree(what: str, groups: dict[str, list[Path]]) -> list[str]:
    """One problem when `groups` (text -> the files that have it) holds more than one text."""
    if len(groups) < 2:
        return []
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    shown = "; ".join(f"{len(fs)} file(s) have {text[:60]!r}... (e.g. {fs[0]})"
                      for text, fs in ranked[:3])
    return [f"{OPTION}: {what} differ: {shown}; give only the authors' files, unchanged"]
