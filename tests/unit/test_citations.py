"""Rule citations and document paths resolve inside the repository.

Code, error messages, tests and documents cite the rules gpuia follows as "rules N.M" (or "rules
section N", "[rules N.M]"), meaning the numbered rules of docs/rules.md. These tests fail when

* gpuia/, tests/ or docs/ still cite the old, unpublished rule file by its old name;
* a citation names a rule or section docs/rules.md does not have;
* a path to a Markdown file mentioned in gpuia/, tests/ or docs/ does not exist.

They need no adapter. The repository root is the folder above this file when it lives in
tests/, else $GPUIA_ROOT, else the current folder.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from helpers import REPO

ROOT = REPO
RULES_MD = ROOT / "docs" / "rules.md"
OLD_WORD = "rule" "book"  # in two parts, so that this file does not cite it
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".venv", ".git"}

# "rules 4.9", "rules 4.9 and 5.4", "rules 3.7-3.9", "rules 2.2/2.3", "rules 8.1, 8.4",
# "rules section 9", "rules sections 1 and 2", "[rules 9.2, 9.4]"; "7\.4" inside a regex.
_NUM = r"\d+(?:\\?\.\d+)?"
_SEP = r"\s*(?:,|/|-|–|\band\b)\s*"
CITATION = re.compile(rf"\brules\s+(?:sections?\s+)?(?P<list>{_NUM}(?:{_SEP}{_NUM})*)",
                      re.IGNORECASE)
MD_PATH = re.compile(r"(?<![\w.-])((?:\.\./|/)?(?:[\w.-]+/)+[\w.-]+\.md)(?![\w-])")


def _files(*roots: str) -> list[Path]:
    """Tracked and untracked-but-not-ignored text files under roots (every file where the tree
    is not a git checkout), skipping caches."""
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "--", *roots],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
        paths = [ROOT / p for p in out.splitlines() if p]
    except (OSError, subprocess.CalledProcessError):
        paths = [p for r in roots for p in (ROOT / r).rglob("*")]
    return sorted(p for p in paths
                  if p.is_file() and not (set(p.relative_to(ROOT).parts) & SKIP_DIRS))


def _lines(*roots: str):
    """(relative path, line number, line) of every text line under roots."""
    for path in _files(*roots):
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(text.splitlines(), 1):
            yield rel, n, line


@cache
def rule_numbers() -> frozenset[str]:
    """Every section ("9") and rule ("9.7") number docs/rules.md defines, from its headings
    ("## 9. ..." and "### 9.7 ...")."""
    text = RULES_MD.read_text(encoding="utf-8")
    sections = re.findall(r"^## (\d+)\. ", text, re.M)
    rules = re.findall(r"^### (\d+\.\d+) ", text, re.M)
    return frozenset(sections) | frozenset(rules)


def cited_numbers(citation_list: str) -> list[str]:
    """The numbers one citation names, ranges expanded: "3.7-3.9" -> 3.7, 3.8, 3.9."""
    text = citation_list.replace("\\.", ".")
    out: list[str] = []
    for part in re.split(r"\s*(?:,|/|\band\b)\s*", text):
        bounds = [b.strip() for b in re.split(r"\s*[-–]\s*", part) if b.strip()]
        if len(bounds) == 2 and all("." in b for b in bounds):
            (s1, r1), (s2, r2) = (b.split(".") for b in bounds)
            if s1 == s2 and int(r1) <= int(r2):
                out += [f"{s1}.{r}" for r in range(int(r1), int(r2) + 1)]
                continue
        out += bounds
    return out


# Rules per section of docs/rules.md. Citations depend on these numbers, so a rule is never
# renumbered; a new rule takes the next free number of its section and is added here.
RULES_PER_SECTION = {1: 3, 2: 12, 3: 12, 4: 10, 5: 6, 6: 5, 7: 4, 8: 13, 9: 9, 10: 5, 11: 0, 14: 3,
                     15: 3}


def test_rules_md_keeps_its_numbering():
    numbers = rule_numbers()
    expected = {str(s) for s in RULES_PER_SECTION} | {
        f"{s}.{r}" for s, count in RULES_PER_SECTION.items() for r in range(1, count + 1)}
    assert numbers >= expected, f"docs/rules.md lacks {sorted(expected - numbers)}"


def test_the_old_rule_file_is_not_cited():
    found = [f"{rel}:{n}: {line.strip()}" for rel, n, line in _lines("gpuia", "tests", "docs")
             if OLD_WORD in line.lower()]
    assert not found, (f"{len(found)} lines still cite the {OLD_WORD}; cite docs/rules.md as "
                       f"'rules N.M':\n" + "\n".join(found))


def test_every_cited_rule_exists():
    numbers = rule_numbers()
    missing, seen = [], 0
    for rel, n, line in _lines("gpuia", "tests", "docs", "demos", "benchmarks", "README.md"):
        if rel == "docs/rules.md":
            continue
        for m in CITATION.finditer(line):
            for number in cited_numbers(m.group("list")):
                seen += 1
                if number not in numbers:
                    missing.append(f"{rel}:{n}: rules {number}: {line.strip()}")
    assert seen, "no 'rules N.M' citation found at all: is the tree rewritten?"
    assert not missing, "citations of rules docs/rules.md does not have:\n" + "\n".join(missing)


def test_markdown_paths_exist():
    broken = []
    for rel, n, line in _lines("gpuia", "tests", "docs"):
        for m in MD_PATH.finditer(line):
            target = m.group(1)
            here = (ROOT / rel).parent
            # Only a file inside the repository counts: users have nothing else.
            if not any((base / target).is_file() and (base / target).resolve().is_relative_to(ROOT)
                       for base in (ROOT, here)):
                broken.append(f"{rel}:{n}: {target}")
    assert not broken, "references to Markdown files that do not exist:\n" + "\n".join(broken)


@pytest.mark.parametrize("text, numbers", [
    ("4.9 and 5.4", ["4.9", "5.4"]),
    ("3.7-3.9", ["3.7", "3.8", "3.9"]),
    ("2.2/2.3", ["2.2", "2.3"]),
    ("2.3 / 2.2", ["2.3", "2.2"]),
    ("8.1, 8.4", ["8.1", "8.4"]),
    ("3.1, 11", ["3.1", "11"]),
    ("7\\.4", ["7.4"]),
    ("9", ["9"]),
])
def test_cited_numbers(text, numbers):
    assert cited_numbers(text) == numbers


def test_citation_pattern_reads_every_form():
    line = ("Rules 2.5: (rules 4.9 and 5.4) rules section 9, [rules 9.2, 9.4], rules sections 1 "
            r'and 2, match=rf"offset=1: .*rules 7\.4"')
    assert [m.group("list") for m in CITATION.finditer(line)] == [
        "2.5", "4.9 and 5.4", "9", "9.2, 9.4", "1 and 2", "7\\.4"]
