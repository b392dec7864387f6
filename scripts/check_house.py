#!/usr/bin/env python3
"""The house rules, checked over the tracked files (git ls-files: build output never counts).

Prints each violation as `path:line: rule: detail` and exits 1, else prints one summary line and
exits 0; exits 77 (ctest: skipped) with the reason where there is no git or no git work tree.
ctest runs it (house.check); it runs standalone too: scripts/check_house.py, from anywhere.

  layers      quoted includes, written from the repository root, only from the layers below (LAYERS)
  lines       README.md and every PERFORMANCE.md under LINE_LIMIT lines: references, not logs
  diary       no dates, commit hashes, build tags or VM ids outside results/: docs say what is
  paths       every repository path cited in docs and code exists (renamed folders: RENAMED)
"""

import os
import re
import subprocess
import sys

BACKENDS = ("cpu", "cuda", "opencl", "vulkan", "mpi")
# What each layer may include: only the layers below it, so that the contract never depends on the
# harness and a backend sees the contract and platform/ alone. Other folders (tools/, tests/, fuzz/) may
# include anything.
LAYERS = {
    "platform": ("platform",),
    "api": ("api", "platform"),
    "exact": ("exact", "api", "platform"),
    **{backend: ("api", "exact", "platform") + BACKENDS for backend in BACKENDS},
    "report": ("report", "api", "exact", "platform"),
    "bench": ("bench", "report", "api", "exact", "platform"),
}
LINE_LIMIT = 300  # README.md and every PERFORMANCE.md have fewer lines than this
RENAMED = {"gpu": "cuda"}  # folders that moved: any citation of the old name is stale
# results/ is the record: dates, hashes and tags live there. Its README.md (the CSV columns) is the
# one file in it whose cited paths are checked.
RECORD = "results/"
# Fixtures: data, not prose; check_house_test.py's scratch repository breaks every rule on purpose.
NOT_CHECKED = ("plot/tests/data/", "fuzz/corpus/", "tests/check_house_test.py")
TEST_FOLDERS = ("tests/", "plot/tests/", "frameworks/tests/", "fuzz/")  # their strings are test data
EXAMPLE_MACHINE = "vm-3f2a91c0"  # the placeholder --help and the docs show for the machine identity
# Exact exceptions, `path:regex`: what the regex matches on a line of that file is not checked.
ALLOW = [
    r"plot/README.md:(ws-ryzen|lab-xeon)-[0-9a-f]{8}",  # the machine ids of plot/tests/data's fixtures
]

C_LIKE = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".cl", ".comp")
SCRIPT_LIKE = (".py", ".sh", ".cmake", ".txt", ".toml", ".yml", ".json")  # "#" starts a comment (.json has none)
CITED_EXT = "hpp|cpp|cuh|cu|h|md|py|sh|cmake|txt|cl|comp|json|csv|png|html|toml|yml"
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
DIARY = [  # most specific first: what one rule reports, the next does not see again
    ("VM id", re.compile(r"(?<!\w)vm-[0-9a-f]{8}(?![\w])")),
    ("build tag", re.compile(r"(?<!\w)(?:exp-[0-9a-f]{7,40}(?!\w)|results-\d{4}-\d\d-\d\d(?:[.-]\w+)*)")),
    ("date", re.compile(r"(?<!\w)(?:19|20)\d\d-[01]\d-[0-3]\d(?!\d)")),
    ("commit hash", re.compile(r"(?<![\w.])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w])")),
]
RECORD_PATH = re.compile(r"(?<![\w./-])results/[^\s`'\")\]]*")  # a path into results/ may hold any of them
# A cited path: folders, then a file name with one of CITED_EXT; not the tail of a longer path, of a
# ${VARIABLE}/, a <placeholder> or an option's value (--csv=results/x.csv names what a command writes).
PATH = re.compile(r"(?<![\w./$}{@+<=-])([\w@+-][\w.@+-]*/(?:[\w.@+-]+/)*[\w.@+-]*\.(?:" + CITED_EXT + r"))(?![\w/]|\.\w)")
BARE_FOLDER = re.compile(r"(?<![\w./-])(" + "|".join(RENAMED) + r")/(?![\w*])")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, check=True).stdout


def tracked(root):
    """The tracked files, or None where root is not the top of a git work tree (a copy of the sources)."""
    top = git(root, "rev-parse", "--show-toplevel").strip()
    if not os.path.samefile(top, root):
        return None
    return sorted(p for p in git(root, "ls-files", "-z").split("\0") if p)


def is_text_source(path):
    return path.endswith(C_LIKE + SCRIPT_LIKE) or os.path.basename(path) == "CMakeLists.txt" or path == ".ci/run"


def comment_part(path, line, in_block):
    """The part of a line of code that is comment, and whether a /* */ block is still open after it."""
    if not path.endswith(C_LIKE):
        return line[line.index("#"):] if "#" in line else "", False
    if in_block:
        end = line.find("*/")
        return (line, True) if end < 0 else (line[:end], False)
    at = line.find("//")
    start = line.find("/*")
    if start >= 0 and (at < 0 or start < at):
        return line[start:], line.find("*/", start) < 0
    return (line[at:] if at >= 0 else ""), False


def check_layers(path, lines):
    allowed = LAYERS.get(path.split("/")[0])
    if allowed is None or not path.endswith(C_LIKE):
        return
    for number, line in enumerate(lines, 1):
        match = INCLUDE.match(line)
        if match and match.group(1).split("/")[0] not in allowed:
            layers = ", ".join(folder + "/" for folder in allowed)
            yield number, "layers", f'includes "{match.group(1)}": {path.split("/")[0]}/ may include only {layers}'


def check_lines(path, lines):
    if path == "README.md" or os.path.basename(path) == "PERFORMANCE.md":
        if len(lines) >= LINE_LIMIT:
            yield LINE_LIMIT, "lines", f"{len(lines)} lines; a reference stays under {LINE_LIMIT}"


def check_diary(text):
    for rule, pattern in DIARY:
        for match in pattern.finditer(text):
            yield rule, match.group(0)
        text = pattern.sub(" ", text)


def cited(known, path, token):
    """Whether a cited path names a tracked file or folder: from the root, else from the citing file."""
    return any(os.path.normpath(os.path.join(base, token)) in known for base in ("", os.path.dirname(path)))


def check_paths(known, tops, path, text):
    for match in BARE_FOLDER.finditer(text):
        yield f"{match.group(0)} was renamed {RENAMED[match.group(1)]}/"
    for match in PATH.finditer(text):
        token = match.group(1)
        first = token.split("/")[0]
        if first in RENAMED:
            yield f"{token}: {first}/ was renamed {RENAMED[first]}/"
        elif first in tops and not cited(known, path, token):
            yield f"{token} does not exist"
    if path.endswith(".md"):
        for match in LINK.finditer(text):
            target = match.group(1).split("#")[0]
            if target and not re.match(r"[a-z]+:", target) and not any(c in target for c in "*<{$"):
                if not cited(known, path, target.rstrip("/")):
                    yield f"link ({match.group(1)}) leads nowhere"


def check_file(root, known, tops, path):
    try:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (UnicodeDecodeError, FileNotFoundError):  # binary, or deleted and not yet committed
        return
    yield from check_layers(path, lines)
    yield from check_lines(path, lines)
    is_doc = path.endswith(".md")
    if not (is_doc or is_text_source(path)) or path.startswith(NOT_CHECKED):
        return
    if path.startswith(RECORD) and path != RECORD + "README.md":
        return
    allowed = [re.compile(entry.split(":", 1)[1]) for entry in ALLOW if entry.split(":", 1)[0] == path]
    test_code = path.startswith(TEST_FOLDERS) and not is_doc
    in_block = False
    for number, line in enumerate(lines, 1):
        for pattern in allowed:
            line = pattern.sub(" ", line)
        for detail in () if INCLUDE.match(line) else check_paths(known, tops, path, line):
            yield number, "paths", detail  # an include's path is the compiler's to check
        if path.startswith(RECORD):
            continue
        if test_code:
            line, in_block = comment_part(path, line, in_block)
        line = RECORD_PATH.sub(" ", line.replace(EXAMPLE_MACHINE, " "))
        for rule, token in check_diary(line):
            yield number, "diary", f"{rule} '{token}': docs and comments say what is, results/ keeps the record"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        files = tracked(root)
    except (OSError, subprocess.CalledProcessError):
        files = None
    if files is None:
        print(f"skipped: the house check reads git ls-files, and {root} is no git work tree's top (or git is missing)")
        return 77
    known = set(files)  # the tracked files and every folder above one
    for folder in {os.path.dirname(p) for p in files}:
        while folder:
            known.add(folder)
            folder = os.path.dirname(folder)
    tops = {p.split("/")[0] for p in files if "/" in p}
    violations = 0
    for path in files:
        for number, rule, detail in check_file(root, known, tops, path):
            print(f"{path}:{number}: {rule}: {detail}")
            violations += 1
    if violations:
        print(f"house check: {violations} violations in {len(files)} tracked files")
        return 1
    print(f"house check: {len(files)} tracked files keep the layers, line limits, diary and path rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
