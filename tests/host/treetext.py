"""treetext: reading the repository's own text, for the host tests that check it.

  ROOT                    the top of the checkout
  text_files()            (path relative to ROOT, text) of every text file outside build/ and .git
  markdown_files()        the same for README.md, docs/ and labs/ (the book and the handouts)
  KEY_USE_RE, KEY_DEF_RE  a citation (a key after an at sign, in brackets), and its definition in
                          docs/sources.md (the same in bold, opening a list item)
  prose(text)             a Markdown text's lines with fenced code blocks and `code spans` blanked
                          (same line numbers), so what is checked is what the reader reads as prose
  headings(text)          a Markdown file's headings as (level, rendered text, GitHub anchor)
  anchor(text, seen)      GitHub's anchor for a heading's rendered text; `seen` counts repeats
"""
import os
import re
import unicodedata

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SKIP = {".git", "build", "__pycache__"}
TEXT_EXT = {".c", ".h", ".S", ".py", ".md", ".mk", ".sh", ".cfg", ".ld", ".txt", ".gdbinit", ".csv", ""}

KEY_USE_RE = re.compile(r"\[@([A-Za-z0-9][A-Za-z0-9_.+-]*)\]")
KEY_DEF_RE = re.compile(r"^- \*\*\[@([A-Za-z0-9][A-Za-z0-9_.+-]*)\]\*\*", re.M)
FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")
SPAN_RE = re.compile(r"(`+)(.+?)\1")
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def text_files(top=ROOT):
    """(relative path, text) of every text file under `top` but build/ and .git (a worktree's
    .git is a file naming the build machine's checkout)."""
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x not in SKIP)
        for f in sorted(files):
            path = os.path.join(d, f)
            if f in SKIP or (os.path.splitext(f)[1] not in TEXT_EXT and not os.access(path, os.X_OK)):
                continue
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except (UnicodeDecodeError, OSError):
                continue                 # binary (an image, a built program)
            yield os.path.relpath(path, ROOT), text


def markdown_files():
    """(relative path, text) of README.md and every Markdown file under docs/ and labs/."""
    for rel, text in text_files():
        if rel.endswith(".md") and (rel == "README.md" or rel.startswith(("docs/", "labs/"))):
            yield rel, text


def prose(text):
    """The lines of a Markdown text with fenced code blocks, indented code blocks after a blank
    line, and code spans replaced by blanks of the same length."""
    out, fenced, indented, blank = [], False, False, True
    for line in text.split("\n"):
        if FENCE_RE.match(line):
            fenced = not fenced
            line = ""
        elif fenced:
            line = ""
        elif indented and (line.startswith("    ") or not line.strip()):
            line = ""
        elif blank and line.startswith("    "):
            indented, line = True, ""
        else:
            indented = False
            line = SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)
        blank = not line.strip()
        out.append(line)
    return out


def render(heading):
    """A heading's text as GitHub shows it: code spans, emphasis and links reduced to their text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = SPAN_RE.sub(lambda m: m.group(2), text)
    text = re.sub(r"(\*\*|__|\*)(.+?)\1", r"\2", text)
    return re.sub(r"<[^>]+>", "", text).strip()


def anchor(text, seen):
    """GitHub's anchor for a heading (github-slugger): lower case, every character that is not a
    letter, a digit, '_', '-' or a space dropped, spaces made '-'; the n-th repeat of an anchor
    gets '-n'."""
    slug = "".join(c for c in text.lower()
                   if c in " -_" or unicodedata.category(c)[0] in "LNM").replace(" ", "-")
    n = seen.get(slug, 0)
    seen[slug] = n + 1
    return slug if n == 0 else "%s-%d" % (slug, n)


def headings(text):
    """[(level, rendered text, anchor)] of a Markdown text's ATX headings, outside code."""
    seen, out, fenced = {}, [], False
    for line in text.split("\n"):
        if FENCE_RE.match(line):
            fenced = not fenced
            continue
        m = HEADING_RE.match(line) if not fenced else None
        if m:
            title = render(m.group(2))
            out.append((len(m.group(1)), title, anchor(title, seen)))
    return out
