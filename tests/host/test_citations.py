"""test_citations: every citation in the tree can be followed from a fresh clone.

It reads the repository's text files (the code, the tests, the tools, the book; not build/) and
checks:
  - every `[@key]` is defined in docs/sources.md (as `**[@key]**`), the bibliography;
  - no file names a Markdown file that is not in the repository (`foo.md` must exist next to the
    file that names it, at the top, in docs/, or under that path), and none cites the project's
    private notes or a private search index ("index id NNNN", "outside this repository");
  - none cites what a reader of the repository cannot follow: a path on the machine the work was
    done on (/work/..., /home/..., /root/... anywhere; /tmp/... in the book's prose, where it is
    not a path in the guest), a section of a design document that is not in the tree
    ("DESIGN" and a section sign), the project's "first notes", or a numbered issue of a
    tracker that is not in the repository ("issue 21", "issues 11-14", "#21": cite the commit
    that `git log` shows for it, or the chapter's section);
  - docs/sources.md defines each key once.
A failure names the file and line, so the fix is one edit. It needs no build and no guest.
tests/host/test_links.py checks the book's links and that every source is cited.
"""
# tests/run: timeout=60
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
from treetext import KEY_DEF_RE, KEY_USE_RE, ROOT, prose, text_files  # noqa: E402

SOURCES = os.path.join(ROOT, "docs", "sources.md")
MD_RE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\b")
# Split so that this file does not match itself.
PRIVATE = [("private notes", re.compile("design" + r"-notes|qemu" + r"-facts|CONTRACT\.md|DESIGN\.md")),
           ("a search-index id", re.compile(r"\bindex ids?\b|\(ids? \d{5,}|\bids? \d{6,}")),
           ("a file outside the repository", re.compile("outside this " + "repository")),
           ("a design document's section", re.compile("DESIGN" + r"\s*\u00a7")),
           ("the project's first notes", re.compile("first" + r"\s+notes", re.I)),
           ("a numbered issue", re.compile(r"\b[Ii]ssues?\s+#?\d+|(?<![\w&#/`'\"])(?<!\]\()#\d+\b(?!-)")),
           ("a path on the build machine", re.compile(r"(?<![\w.~-])/(?:work|home|root|scratch)/"))]
# "#N" that is not an issue: PCI's configuration mechanism #1, gdb's backtrace frames (#0 80119d69 in ...)
NOT_ISSUE = re.compile(r"mechanism #\d|#\d+ +(?:0x)?[0-9a-f]{8} in ")
TMP_RE = re.compile(r"(?<![\w.~-])/tmp/")

T = TestSet("citations")
files = list(text_files())
all_md = {rel for rel, _ in files if rel.endswith(".md")}
with open(SOURCES) as fh:
    sources = fh.read()
defined = KEY_DEF_RE.findall(sources)
twice = sorted({k for k in defined if defined.count(k) > 1})
T.check("docs/sources.md defines each key once", not twice, expected="no key twice", got=twice)
defined = set(defined)


def md_exists(rel, name):
    """Does the Markdown file `name`, as written in file `rel`, exist in the repository?"""
    here = os.path.dirname(rel)
    for cand in (os.path.join(here, name), name, os.path.join("docs", name)):
        if os.path.normpath(cand) in all_md:
            return True
    return any(p.endswith("/" + name) for p in all_md)


def unfollowable(line):
    """What in this line a reader cannot follow: [(what, the text)]."""
    out = []
    for what, rx in PRIVATE:
        for m in rx.finditer(line):
            if what == "a numbered issue" and NOT_ISSUE.search(line[max(0, m.start() - 12):m.end() + 14]):
                continue
            out.append((what, m.group(0)))
    return out


undefined, missing_md, private = [], [], []
for rel, text in files:
    if rel == os.path.relpath(__file__, ROOT):
        continue
    reading = prose(text) if rel.endswith(".md") else None
    for n, line in enumerate(text.split("\n"), 1):
        where = "%s:%d" % (rel, n)
        undefined += ["%s [@%s]" % (where, k) for k in KEY_USE_RE.findall(line) if k not in defined]
        missing_md += ["%s %s" % (where, m) for m in MD_RE.findall(line)
                       if "://" not in line and not md_exists(rel, m)]
        private += ["%s: %s (%s)" % (where, what, found) for what, found in unfollowable(line)]
        if reading is not None and TMP_RE.search(reading[n - 1]):
            private.append("%s: a path on the build machine (/tmp/ in prose)" % where)

T.check("every [@key] cited in the tree is defined in docs/sources.md (%d keys defined)" % len(defined),
        not undefined, expected="none undefined", got=undefined)
T.check("no file cites a Markdown file that is not in the repository (%d files read)" % len(files),
        not missing_md, expected="none missing", got=missing_md)
T.check("no file cites private notes, a search index's ids, a file outside the repository, a path on the "
        "build machine, a design document's section, the first notes or a numbered issue",
        not private, expected="none", got=private)
T.done()
