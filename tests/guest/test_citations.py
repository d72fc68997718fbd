"""test_citations: every citation in the tree can be followed from a fresh clone (issue 19).

It reads the repository's text files (the code, the tests, the tools, the book; not build/) and
checks:
  - every `[@key]` is defined in docs/sources.md (as `**[@key]**`), the bibliography;
  - no file names a Markdown file that is not in the repository (`foo.md` must exist next to the
    file that names it, at the top, in docs/, or under that path), and none cites the project's
    private notes or a private search index ("index id NNNN", "outside this repository");
  - docs/sources.md defines each key once.
A failure names the file and line, so the fix is one edit. It needs no build and no guest.
"""
# tests/run: timeout=60
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SOURCES = os.path.join(ROOT, "docs", "sources.md")
SKIP_DIRS = {".git", "build", "__pycache__"}
TEXT_EXT = {".c", ".h", ".S", ".py", ".md", ".mk", ".sh", ".cfg", ".ld", ".txt", ".gdbinit", ""}

KEY_USE_RE = re.compile(r"\[@([A-Za-z0-9][A-Za-z0-9_.+-]*)\]")
KEY_DEF_RE = re.compile(r"^- \*\*\[@([A-Za-z0-9][A-Za-z0-9_.+-]*)\]\*\*", re.M)
MD_RE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\b")
# Split so that this file does not match itself.
PRIVATE = [("private notes", re.compile("design" + r"-notes|qemu" + r"-facts|CONTRACT\.md|DESIGN\.md")),
           ("a search-index id", re.compile(r"\bindex ids?\b|\(ids? \d{5,}|\bids? \d{6,}")),
           ("a file outside the repository", re.compile("outside this " + "repository"))]

T = TestSet("citations")


def text_files():
    """(relative path, text) of every text file of the repository outside build/."""
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        for f in sorted(files):
            path = os.path.join(d, f)
            if os.path.splitext(f)[1] not in TEXT_EXT and not os.access(path, os.X_OK):
                continue
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except (UnicodeDecodeError, OSError):
                continue                 # binary (an image, a built program)
            yield os.path.relpath(path, ROOT), text


def md_exists(rel, name, all_md):
    """Does the Markdown file `name`, as written in file `rel`, exist in the repository?"""
    here = os.path.dirname(rel)
    for cand in (os.path.join(here, name), name, os.path.join("docs", name)):
        if os.path.normpath(cand) in all_md:
            return True
    return any(p.endswith("/" + name) for p in all_md)


files = list(text_files())
all_md = {rel for rel, _ in files if rel.endswith(".md")}
with open(SOURCES) as fh:
    sources = fh.read()
defined = KEY_DEF_RE.findall(sources)
twice = sorted({k for k in defined if defined.count(k) > 1})
T.check("docs/sources.md defines each key once", not twice, expected="no key twice", got=twice)
defined = set(defined)

undefined, missing_md, private = [], [], []
for rel, text in files:
    if rel == os.path.relpath(__file__, ROOT):
        continue
    for n, line in enumerate(text.split("\n"), 1):
        where = "%s:%d" % (rel, n)
        undefined += ["%s [@%s]" % (where, k) for k in KEY_USE_RE.findall(line) if k not in defined]
        missing_md += ["%s %s" % (where, m) for m in MD_RE.findall(line)
                       if "://" not in line and not md_exists(rel, m, all_md)]
        private += ["%s: %s" % (where, what) for what, rx in PRIVATE if rx.search(line)]

T.check("every [@key] cited in the tree is defined in docs/sources.md (%d keys defined)" % len(defined),
        not undefined, expected="none undefined", got=undefined)
T.check("no file cites a Markdown file that is not in the repository (%d files read)" % len(files),
        not missing_md, expected="none missing", got=missing_md)
T.check("no file cites the project's private notes, a search index's ids or a file outside the repository",
        not private, expected="none", got=private)
used = {k for rel, text in files if rel != "docs/sources.md" for k in KEY_USE_RE.findall(text)}
T.check("the keys are used: history.md and the code cite docs/sources.md (%d keys used)" % len(used),
        len(used) >= 20, expected=">= 20 keys cited outside sources.md", got=len(used))
T.done()
