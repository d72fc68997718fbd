"""test_links: the book's links lead somewhere, and its bibliography is the one it cites.

Reads README.md and every Markdown file under docs/ and labs/ (no build, no guest) and checks:
  - every relative link, `[text](path)`, `![alt](path)` or `[name]: path`, names a file or folder
    of the repository (relative to the file it is in), and a link with `#anchor` names a heading
    of its target (GitHub's anchors: lower case, punctuation dropped, spaces made '-', the n-th
    repeat of a heading '-n'); `#anchor` alone is a heading of the same file;
  - every image, `![alt](path)` (the chapters' plots, README's trade-off), names a PNG, JPEG,
    GIF or SVG file that is there, not a folder or a page;
  - a chapter's section named in quotes after its file's name (`bufcache.md "The perdevice
    design"`, in the book, the code and the tests) is there: part of one of its headings, or
    the start of a bold lead (`**Why 50 ms.**`) or of a line;
  - every key the tree cites (an at sign and a key in brackets) is defined in docs/sources.md
    (test_citations.py says where one is not), and every entry of docs/sources.md is cited
    somewhere outside it.
A failure names the file and line of the link, so the fix is one edit.
"""
# tests/run: timeout=60
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from wdtest import TestSet  # noqa: E402
from treetext import KEY_DEF_RE, KEY_USE_RE, ROOT, headings, markdown_files, prose, text_files  # noqa: E402

INLINE_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
IMAGE_RE = re.compile(r"\.(?:png|jpe?g|gif|svg)$", re.I)
SCHEME_RE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
# docs/bufcache.md "The perdevice design", vm.md, "Faults": a chapter and a section of it
SECTION_RE = re.compile(r"((?:[\w.-]+/)*[\w.-]+\.md)\)?,? \"([^\"\n]{2,100}?)\"")

T = TestSet("links")
book = dict(markdown_files())
anchors = {}


def heading_anchors(rel):
    if rel not in anchors:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            anchors[rel] = headings(f.read())
    return anchors[rel]


def resolve(rel, target):
    """Why the link `target` in file `rel` leads nowhere, or None."""
    path, _, frag = target.partition("#")
    dest = os.path.normpath(os.path.join(os.path.dirname(rel), path)) if path else rel
    full = os.path.join(ROOT, dest)
    if dest.startswith("..") or not os.path.exists(full):
        return "no file %s" % dest
    if frag:
        if not dest.endswith(".md") or os.path.isdir(full):
            return "#%s on %s, which has no headings" % (frag, dest)
        if frag not in [a for _, _, a in heading_anchors(dest)]:
            return "no heading of %s has the anchor #%s" % (dest, frag)
    return None


def chapters(rel, name):
    """The Markdown files `name` in file `rel` may mean: beside it, at the top, in docs/."""
    cands = [os.path.normpath(c) for c in (os.path.join(os.path.dirname(rel), name), name, os.path.join("docs", name))]
    return sorted({c for c in cands if os.path.isfile(os.path.join(ROOT, c))})


def has_section(chapter, name):
    """Is `name` part of a heading of `chapter`, or the start of a bold lead or of a line?"""
    name = name.rstrip(".,;:").lower()
    with open(os.path.join(ROOT, chapter), encoding="utf-8") as f:
        text = f.read()
    leads = re.findall(r"\*\*([^*]+)\*\*", text) + text.split("\n")
    return (any(name in t.lower() for _, t, _ in heading_anchors(chapter))
            or any(x.lstrip("-*# ").lower().startswith(name) for x in leads))


links, images, broken = 0, 0, []
for rel, text in sorted(book.items()):
    for n, line in enumerate(prose(text), 1):
        for m in list(INLINE_RE.finditer(line)) + list(REFDEF_RE.finditer(line)):
            target = m.group(1)
            if not target or SCHEME_RE.match(target):
                continue
            links += 1
            why = resolve(rel, target)
            if m.group(0).startswith("!"):
                images += 1
                if not why and not IMAGE_RE.search(target):
                    why = "an image must be a .png, .jpg, .gif or .svg file"
            if why:
                broken.append("%s:%d (%s): %s" % (rel, n, target, why))
T.check("every relative link in README.md, docs/ and labs/ names a file and, with #anchor, a heading of it; "
        "every image a picture file (%d links, %d of them images)" % (links, images), links > 50 and images > 0 and not broken,
        expected="none broken, more than 50 links, images among them", got=broken or (links, images))

files = list(text_files())
sections, unknown = 0, []
for rel, text in files:
    for n, line in enumerate(text.split("\n"), 1):
        for m in SECTION_RE.finditer(line):
            targets = chapters(rel, m.group(1))
            if not targets:
                continue                 # test_citations: a Markdown file that is not there
            sections += 1
            if not any(has_section(t, m.group(2)) for t in targets):
                unknown.append("%s:%d %s \"%s\"" % (rel, n, m.group(1), m.group(2)))
T.check("every section named in quotes after its chapter is there: in a heading, a bold lead or a line's "
        "start (%d named)" % sections, sections > 20 and not unknown, expected="none unknown", got=unknown or sections)

with open(os.path.join(ROOT, "docs", "sources.md"), encoding="utf-8") as f:
    defined = set(KEY_DEF_RE.findall(f.read()))
CHECKERS = {"docs/sources.md", "tests/host/test_citations.py", os.path.relpath(os.path.abspath(__file__), ROOT)}
cited = {k for rel, text in files if rel not in CHECKERS for k in KEY_USE_RE.findall(text)}
T.check("every key cited in the tree is defined in docs/sources.md (%d cited)" % len(cited),
        cited and cited <= defined, expected="all defined", got=sorted(cited - defined))
T.check("every entry of docs/sources.md is cited outside it (%d entries)" % len(defined),
        defined and defined <= cited, expected="every entry cited", got=sorted(defined - cited))
T.done()
