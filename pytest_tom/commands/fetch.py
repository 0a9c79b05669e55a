"""`pytest-tom fetch NAME...`: download a benchmark's official files, on your machine, and
convert them into suites that run by name (`pytest --tom-suite=NAME`).

Each name is declared by its family (`families/<name>/download.py`): files pinned to a
commit of the authors' repository (FANToM: the authors' own download, pinned by the sha256
their loader checks), each checked against its sha256, converted by the family's
converter into the fetch folder (`--dir`, default the per-user cache folder; see
`pytest_tom.catalogue.fetch_folder`). The licence of each is printed, the non-commercial ones
marked. A file whose sha256 (or git blob id) differs is refused and nothing is written.
A licence that restricts the use (non-commercial, evaluation only) is shown and must be
accepted once with `--accept-licence`: the acceptance is kept in the fetch folder
(`accepted-licences.json`), and a later fetch of the same name and licence needs no flag.
Without a name, the names that can be fetched are listed; `all` fetches every one.

Offline: `--list` prints, without any network access, what a fetch of the names would
read (each URL, its size, its sha256, git blob id or "not pinned", the members taken out
of an archive) and the folder it would fill; the files, downloaded anywhere else, are then
installed with `--from FILE...` (`catalogue/fetch_from.py` tells which declared file each
is), through the same checks, licence acceptance, conversion and manifest as a download.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

from tabulate import tabulate

from pytest_tom import families
from pytest_tom.catalogue import fetch_folder as fetched
from pytest_tom.catalogue.bundled import BundledSuitesMissing
from pytest_tom.catalogue.bundled import names as bundled_names
from pytest_tom.catalogue.fetch_from import match
from pytest_tom.catalogue.fetching import (
    MIRROR_ENV,
    FetchError,
    fetch,
    size_text,
    source_url,
    state,
)
from pytest_tom.core.download import Download

NAME = "fetch"
HELP = "download a benchmark's official files and convert them into suites (--tom-suite NAME)"
ALL = "all"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"what to fetch (default: list the names; {ALL}: every one)")
    parser.add_argument("--dir", metavar="DIR",
                        help=f"the fetch folder (default: ${fetched.ENV}, else "
                             f"{fetched.default_root({}, None)})")
    parser.add_argument("--mirror", metavar="URL",
                        help="read the files from a mirror holding each under its URL's host "
                             f"and path (http://..., file:///...; default ${MIRROR_ENV})")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                        help="give up on a server silent this long (default 60)")
    parser.add_argument("--accept-licence", action="store_true",
                        help="accept the restricting licences (non-commercial, evaluation "
                             "only) of the names fetched; asked once per fetch folder")
    parser.add_argument("--list", action="store_true",
                        help="print what a fetch of the names would read (URLs, sizes, sha256 "
                             "or other pin) and where it would install them; no network access")
    parser.add_argument("--from", nargs="+", metavar="FILE", dest="from_files",
                        help="install the names from these files, downloaded elsewhere (the "
                             "files --list shows), after the same checks as a download")


def run(args: argparse.Namespace) -> int:
    try:
        declared = families.downloads()
    except LookupError as exc:
        print(f"pytest-tom fetch: {exc}", file=sys.stderr)
        return 2
    root = fetched.root_of(args.dir)
    mirror = args.mirror or os.environ.get(MIRROR_ENV) or None
    if args.from_files and (args.list or args.mirror):
        print(f"pytest-tom fetch: --from reads the files given: not with "
              f"{'--list' if args.list else '--mirror'}", file=sys.stderr)
        return 2
    if args.from_files and not args.names:
        print("pytest-tom fetch: --from FILE... installs files of the names given first: "
              "pytest-tom fetch NAME... --from FILE... (pytest-tom fetch NAME --list shows "
              "a name's files)", file=sys.stderr)
        return 2
    if not args.names:
        list_names(declared, root)
        return 0
    wanted = list(declared) if ALL in args.names else list(dict.fromkeys(args.names))
    unknown = [n for n in wanted if n not in declared]
    if unknown:
        hint = ""
        try:
            if any(n in bundled_names() for n in unknown):
                hint = " (a bundled suite needs no fetch: pytest --tom-suite=NAME runs it)"
        except BundledSuitesMissing:
            pass
        print(f"pytest-tom fetch: nothing to fetch named {', '.join(map(repr, unknown))}{hint}; "
              f"names: {', '.join(declared)} (or {ALL})", file=sys.stderr)
        return 2
    if args.list:
        for i, name in enumerate(wanted):
            if i:
                print()
            list_files(declared[name], root, mirror)
        return 0
    local: dict[str, dict[str, Path]] = {}
    if args.from_files:
        try:
            local = match([declared[n] for n in wanted], args.from_files,
                          list(declared.values()))
        except FetchError as exc:
            print(f"pytest-tom fetch: {exc}", file=sys.stderr)
            return 2
    pending = unaccepted([declared[n] for n in wanted], root)
    refused = [] if args.accept_licence else pending
    if refused:
        for download in refused:
            print(f"{download.name}: licence {download.licence.line()}", file=sys.stderr)
        print(f"pytest-tom fetch: {', '.join(d.name for d in refused)} restrict(s) the use of "
              f"the data (above); read the licence and fetch again with --accept-licence (asked "
              f"once per fetch folder); nothing fetched", file=sys.stderr)
        return 2
    done: list[str] = []
    failed = 0
    for name in wanted:
        download = declared[name]
        print(f"{name}: {download.benchmark}, {download.what}")
        print(f"  from {download.source}")
        print(f"  licence: {download.licence.line()}")
        for remote in download.files:
            if remote.sha256_source:
                print(f"  sha256 of {remote.filename}: {remote.sha256_source}")
        try:
            result = fetch(download, root, mirror=mirror, timeout=args.timeout,
                           say=print, local=local.get(name) if args.from_files else None)
        except FetchError as exc:
            print(f"pytest-tom fetch: {exc}", file=sys.stderr)
            failed += 1
            continue
        if download in pending:
            accept(root, download)
        files = ", ".join(p.name for p in result.suites)
        state = "already fetched, up to date" if result.up_to_date else "fetched"
        print(f"  {state}: {files}, {result.items:,} items, in {result.folder}")
        done.append(name)
    if done:
        print(f"run: pytest --tom-suite={','.join(done)} --tom-model=SPEC"
              f"{fetched.dir_option(root, '--tom-fetch-dir')}")
    non_commercial = [n for n in done if not declared[n].licence.commercial]
    if non_commercial:
        print(f"note: {', '.join(non_commercial)} may be used for non-commercial purposes only "
              f"(their licence, above)")
    evaluation = [n for n in done if declared[n].licence.evaluation_only]
    if evaluation:
        print(f"note: {', '.join(evaluation)} may be used for evaluation only, never to train "
              f"or fine-tune a model (their licence, above)")
    return 1 if failed else 0


def unaccepted(wanted: list[Download], root: Path) -> list[Download]:
    """The downloads whose restricting licence has not been accepted in `root`."""
    have = fetched.accepted(root)
    return [d for d in wanted if d.licence.needs_acceptance
            and fetched.licence_key(d.name, asdict(d.licence)) not in have]


def accept(root: Path, download: Download) -> None:
    """Record in `root` that `download`'s licence was accepted (after its fetch succeeded:
    a fetch that fails writes nothing)."""
    fetched.record_acceptance(root, [
        {"key": fetched.licence_key(download.name, asdict(download.licence)),
         "name": download.name, "licence": download.licence.name, "url": download.licence.url,
         "accepted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}])


def list_names(declared: dict[str, Download], root: Path) -> None:
    """The names that can be fetched, their licence, and which are fetched already."""
    have = fetched.fetched(root)
    rows = []
    for name, d in declared.items():
        size = sum(r.size or 0 for r in d.files)
        unknown = any(r.size is None for r in d.files)
        licence = d.licence.name + ("" if d.licence.commercial else " (non-commercial)") \
            + (" (evaluation only)" if d.licence.evaluation_only else "")
        rows.append([name, d.benchmark, d.family, licence,
                     size_text(None if unknown else size),
                     "fetched" if name in have else ""])
    print(tabulate(rows, headers=["name", "benchmark", "family", "licence", "download",
                                  "here"]))
    print(f"\nfetch folder: {root}"
          f" ({len(have)} fetched)" if have else f"\nfetch folder: {root} (nothing fetched)")
    print(f"fetch: pytest-tom fetch NAME... ({ALL}: every one) · then: pytest --tom-suite=NAME "
          f"--tom-model=SPEC{fetched.dir_option(root, '--tom-fetch-dir')}")


def list_files(download: Download, root: Path, mirror: str | None) -> None:
    """What `pytest-tom fetch NAME` would read and where it would install it, from the
    declaration alone (`--list`): nothing is downloaded."""
    sizes = [r.size for r in download.files]
    total = size_text(None if None in sizes else sum(s or 0 for s in sizes))
    print(f"{download.name}: {download.benchmark}, {download.what}")
    print(f"  from {download.source}")
    acceptance = accept_flag = ""
    if download.licence.needs_acceptance:
        if unaccepted([download], root):
            acceptance = "; fetch with --accept-licence (asked once per fetch folder)"
            accept_flag = " --accept-licence"
        else:
            acceptance = "; accepted in this fetch folder"
    print(f"  licence: {download.licence.line()}{acceptance}")
    print(f"  {len(download.files)} file(s), {total}:")
    for remote in download.files:
        size = "size unknown" if remote.size is None else \
            f"{size_text(remote.size)}, {remote.size:,} bytes"
        print(f"    {remote.url}")
        print(f"      {remote.filename} ({size})")
        if remote.sha256:
            source = f" ({remote.sha256_source})" if remote.sha256_source else ""
            print(f"      sha256 {remote.sha256}{source}")
        elif remote.git_blob:
            print(f"      git blob id {remote.git_blob} (SHA-1 of `blob <size>\\0` and the "
                  f"bytes, as git ls-tree lists it; no sha256 is known)")
        else:
            print(f"      not pinned: {remote.unpinned}")
        if mirror:
            print(f"      read from the mirror: {source_url(remote, mirror)}")
        for member in remote.members:
            pin = f"sha256 {member.sha256}" if member.sha256 else "checked by the archive's pin"
            print(f"      member taken out: {member.path} ({pin})")
    print(f"  installs into: {root / download.name} ({state(download, root)})")
    print(f"  converted by: {download.convert_command(str(root / download.name))}")
    saved = [r.filename for r in download.files if "/" in r.filename]
    keep = f" (keep the folders of {', '.join(saved)})" if saved else ""
    print(f"  offline: download the file(s) above elsewhere{keep}, then: pytest-tom fetch "
          f"{download.name} --from FILE...{fetched.dir_option(root)}{accept_flag}")
