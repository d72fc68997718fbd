"""markers: the lab regions marked in the source tree, read, checked and cut out.

A lab marks the code its students write with three kinds of marker line. Each is a comment
alone on its line (indentation allowed), in the comment style of the file:

    C, headers, assembly, linker scripts          Python, shell, Makefiles, text
    /* LAB <lab> BEGIN */                         # LAB <lab> BEGIN
    ...the solution...                            ...the solution...
    /* LAB <lab> STUB */                          # LAB <lab> STUB
    // return 0;                                  # return 0
    /* LAB <lab> END */                           # LAB <lab> END

(<lab> is the lab's name, e.g. stripe.) BEGIN..END is a region of that lab; STUB is optional. The lines between STUB and END are
the stub, what the student's handout has instead of the solution: in the tree each of them is
commented out with the file's line comment (`//` or `#`, after the indentation, followed by
one space that is dropped too) or is empty. A long stub would stand in the reader's way, so
it may live in a file of its own instead, named on the STUB line, under labs/<lab>/stubs/:

    /* LAB <lab> STUB labs/<lab>/stubs/<file> */
    /* LAB <lab> END */

(nothing between the two lines; the file's text is the stub as it is, not commented out).
Regions do not nest; a lab may have any number of them, in any files. A marker anywhere but
alone on its line is an error, so that one cannot hide in code and survive into a handout.

Interface:
  comment_style(path)        "c", "hash" or None (a file markers are not looked for in)
  scan(path, text)           -> [Region]; raises MarkerError on any malformed marker. A region
                             whose stub is in a file has .stub_file set and its stub_lines
                             empty: load_stub_files(root, regions) reads them in
  cut(text, regions, stub)   the text with every marker line removed: regions for which
                             stub(region) is true replaced by their stubs, the others keeping
                             their solution
  MARKER_RE                  finds a marker-like word anywhere (for "no marker left" checks)
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

LAB_NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
MARKER_RE = re.compile(r"\bLAB\s+([^\s<]\S*)\s+(BEGIN|STUB|END)\b")     # <lab>: a placeholder in docs

C_SUFFIXES = (".c", ".h", ".S", ".ld")
HASH_SUFFIXES = (".py", ".sh", ".mk", ".txt", ".cfg", ".conf")
HASH_NAMES = ("Makefile",)

# The whole line of a marker, per style: indentation, the comment, nothing after it.
_LINE_RE = {
    "c": re.compile(r"^[ \t]*/\*[ \t]*LAB[ \t]+(\S+)[ \t]+(BEGIN|STUB|END)(?:[ \t]+([^ \t*]+))?[ \t]*\*/[ \t]*$"),
    "hash": re.compile(r"^[ \t]*#[ \t]*LAB[ \t]+(\S+)[ \t]+(BEGIN|STUB|END)(?:[ \t]+(\S+))?[ \t]*$"),
}
_STUB_PREFIX = {"c": "//", "hash": "#"}


class MarkerError(Exception):
    """A malformed marker: .path, .line (1-based) and what is wrong."""

    def __init__(self, path, line, what):
        super().__init__("%s:%d: %s" % (path, line, what))
        self.path, self.line, self.what = path, line, what


@dataclass
class Region:
    lab: str
    path: str
    begin: int                  # 0-based line numbers of the markers (stub: -1 if none)
    stub: int
    end: int
    stub_lines: list = field(default_factory=list)   # the stub as the handout gets it
    stub_file: str = None       # the stub's own file (labs/<lab>/stubs/...), if it has one


def comment_style(path):
    name = str(path).rsplit("/", 1)[-1]
    if name.endswith(C_SUFFIXES):
        return "c"
    if name.endswith(HASH_SUFFIXES) or name in HASH_NAMES:
        return "hash"
    return None


def _uncomment(path, n, line, style):
    """One stub line as the handout gets it."""
    body = line.lstrip(" \t")
    indent = line[:len(line) - len(body)]
    if body.strip() == "":
        return ""
    prefix = _STUB_PREFIX[style]
    if not body.startswith(prefix):
        raise MarkerError(path, n + 1, "a stub line must start with '%s' (it is commented out in the tree)" % prefix)
    body = body[len(prefix):]
    if body.startswith(" "):
        body = body[1:]
    return indent + body if body.strip() else ""


def scan(path, text):
    """The regions of one file, checked: BEGIN [STUB] END, one lab each, no nesting."""
    style = comment_style(path)
    regions, cur = [], None
    for n, line in enumerate(text.split("\n")):
        m = MARKER_RE.search(line)
        if m is None:
            if cur is not None and cur.stub >= 0:
                cur.stub_lines.append(_uncomment(path, n, line, style))
            continue
        full = _LINE_RE[style].match(line) if style else None
        if full is None:
            if style is None:
                raise MarkerError(path, n + 1, "lab markers go only in C, assembly, linker, Python, shell, "
                                  "Makefile and .txt files")
            raise MarkerError(path, n + 1, "a lab marker must be alone on its line, as a %s comment"
                              % ("/* ... */" if style == "c" else "#"))
        lab, kind, named = full.group(1), full.group(2), full.group(3)
        if not LAB_NAME_RE.match(lab):
            raise MarkerError(path, n + 1, "'%s' is not a lab name (lower case letters, digits, _ and -)" % lab)
        if named is not None and (kind != "STUB" or not named.startswith("labs/%s/stubs/" % lab) or
                                  ".." in named.split("/")):
            raise MarkerError(path, n + 1, "only a STUB marker names a file, and it is under labs/%s/stubs/" % lab)
        if kind == "BEGIN":
            if cur is not None:
                raise MarkerError(path, n + 1, "a BEGIN of lab %s inside lab %s's region (line %d): regions do "
                                  "not nest" % (lab, cur.lab, cur.begin + 1))
            cur = Region(lab, str(path), n, -1, -1)
            continue
        if cur is None:
            raise MarkerError(path, n + 1, "a %s of lab %s without a BEGIN before it" % (kind, lab))
        if lab != cur.lab:
            raise MarkerError(path, n + 1, "a %s of lab %s in lab %s's region (line %d)"
                              % (kind, lab, cur.lab, cur.begin + 1))
        if kind == "STUB":
            if cur.stub >= 0:
                raise MarkerError(path, n + 1, "a second STUB of lab %s in one region" % lab)
            cur.stub = n
            cur.stub_file = named
        else:
            if cur.stub_file is not None and any(ln.strip() for ln in cur.stub_lines):
                raise MarkerError(path, n + 1, "the stub of lab %s is in %s: nothing goes between its STUB "
                                  "and END lines" % (lab, cur.stub_file))
            cur.end = n
            regions.append(cur)
            cur = None
    if cur is not None:
        raise MarkerError(path, cur.begin + 1, "the BEGIN of lab %s has no END" % cur.lab)
    return regions


def load_stub_files(root, regions):
    """Read the stub of every region that names a stub file (relative to root)."""
    for r in regions:
        if r.stub_file is None:
            continue
        try:
            text = (Path(root) / r.stub_file).read_text()
        except OSError as e:
            raise MarkerError(r.path, r.stub + 1, "its stub file %s cannot be read: %s" % (r.stub_file, e.strerror))
        r.stub_lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def cut(text, regions, stub):
    """The text without markers; stub(region) true: the region's stub instead of its solution."""
    lines = text.split("\n")
    out, at = [], 0
    for r in regions:
        out.extend(lines[at:r.begin])
        if stub(r):
            out.extend(r.stub_lines)
        else:
            out.extend(lines[r.begin + 1:r.stub if r.stub >= 0 else r.end])
        at = r.end + 1
    out.extend(lines[at:])
    return "\n".join(out)
