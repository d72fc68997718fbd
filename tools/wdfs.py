"""wdfs: read (and deliberately damage) wdfs images on the host, in Python.

A second reader of the on-disk format of kernel/fs/wdfs/wdfs_format.h (docs/fs.md), written
from that description, for the host side of the reliability tests: the crash tests read the
files a guest fsync'd straight out of the image, and tools/wdfs-mutate uses the same parser
to find the structures it damages. It never repairs anything (that is tools/fsck).

    img = Image(path, writable=False)
    img.sb                      the superblock as a dict (s_bsize, s_ninodes, ...)
    img.inode(ino)              an Inode (fields as in struct wdfs_dinode); .is_dir, .is_reg,
                                .is_lnk (a symbolic link: its target is its data), .is_fifo,
                                .is_chr, .is_blk (.rdev is the device number), .is_sock
    img.put_inode(ino, inode)   write it back (writable images only)
    img.block(b) / put_block(b, data)
    img.bmap(inode, lbn)        the data block of logical block lbn, 0 for a hole
    img.pointers(inode)         every block pointer the inode reaches: Ptr(where, level, lbn, blk)
    img.entries(ino)            a directory's records: Dirent(name, ino, type, blk, off, reclen)
    img.lookup(path)            inode number of an absolute path, or None
    img.read(ino, limit)        a file's contents (at most `limit` bytes)
    img.walk()                  (path, ino, Inode) for everything reachable from the root,
                                each directory once
    img.seal_super()            recompute the superblock checksum after changing img.sb

Errors in the image raise WdfsError with a message naming the structure; the reader bounds
every loop (directory depth, file length), so a damaged image cannot hang it.
"""

import struct
import zlib
from dataclasses import dataclass, fields

MAGIC = 0x53464457
ROOTINO = 2
NDADDR = 12
NIADDR = 3
INODE_SIZE = 128
DIRBLKSIZ = 4096
DIRHDR = 8
S_IFMT, S_IFDIR, S_IFREG, S_IFLNK, S_IFIFO = 0o170000, 0o040000, 0o100000, 0o120000, 0o010000
S_IFCHR, S_IFBLK, S_IFSOCK = 0o020000, 0o060000, 0o140000
DT_FIFO, DT_CHR, DT_DIR, DT_BLK, DT_REG, DT_LNK, DT_SOCK = 1, 2, 4, 6, 8, 10, 12
MAXSYMLINK = 1023                 # a symbolic link's target: 1..1023 bytes in its first block

SUPER_FIELDS = ("s_magic s_version s_bsize s_bshift s_nblocks s_ninodes s_inodesize s_rootino "
                "s_bmap_start s_bmap_blocks s_imap_start s_imap_blocks s_itab_start s_itab_blocks "
                "s_data_start s_free_blocks s_free_inodes s_clean s_ctime s_wtime").split()
SUPER_FMT = "<18I2q"              # 88 bytes; s_spare up to byte 252, then s_cksum
SUPER_SIZE = 256
CKSUM_OFF = 252
INODE_FMT = "<HHIIIQQqqq12I3II2I"


class WdfsError(Exception):
    """The image is not a wdfs file system, or a structure in it is damaged."""


@dataclass
class Inode:
    mode: int
    nlink: int
    uid: int
    gid: int
    gen: int
    size: int
    blocks: int
    atime: int
    mtime: int
    ctime: int
    db: list
    ib: list
    flags: int
    rdev: int            # a device node's number (format version 3)
    spare: int

    @classmethod
    def unpack(cls, raw):
        v = struct.unpack(INODE_FMT, raw)
        return cls(*v[:10], list(v[10:22]), list(v[22:25]), v[25], v[26], v[27])

    def pack(self):
        return struct.pack(INODE_FMT, self.mode, self.nlink, self.uid, self.gid, self.gen, self.size,
                           self.blocks, self.atime, self.mtime, self.ctime, *self.db, *self.ib,
                           self.flags, self.rdev, self.spare)

    @property
    def is_dir(self):
        return self.mode & S_IFMT == S_IFDIR

    @property
    def is_reg(self):
        return self.mode & S_IFMT == S_IFREG

    @property
    def is_lnk(self):
        return self.mode & S_IFMT == S_IFLNK

    @property
    def is_fifo(self):
        return self.mode & S_IFMT == S_IFIFO

    @property
    def is_chr(self):
        return self.mode & S_IFMT == S_IFCHR

    @property
    def is_blk(self):
        return self.mode & S_IFMT == S_IFBLK

    @property
    def is_sock(self):
        return self.mode & S_IFMT == S_IFSOCK

    def field_names(self):
        return [f.name for f in fields(self)]


@dataclass
class Ptr:
    """One block pointer: where it is stored, what it maps and the block it names.
    where = ("inode", ino, "db"|"ib", index) or ("indirect", blk, index)."""
    where: tuple
    level: int           # 0 = points at a data block, 1..3 = at an indirect block of that level
    lbn: int             # first logical block under it
    blk: int


@dataclass
class Dirent:
    name: bytes
    ino: int
    type: int
    blk: int             # the directory block holding the record
    off: int             # its byte offset in that block
    reclen: int


class Image:
    def __init__(self, path, writable=False):
        self.path = str(path)
        self.f = open(self.path, "r+b" if writable else "rb")
        self.f.seek(0, 2)
        self.size = self.f.tell()
        raw = self._pread(0, SUPER_SIZE)
        if len(raw) < SUPER_SIZE:
            raise WdfsError("%s: too short for a superblock" % self.path)
        self.sb = dict(zip(SUPER_FIELDS, struct.unpack_from(SUPER_FMT, raw)))
        self.sb_raw = bytearray(raw)
        if self.sb["s_magic"] != MAGIC:
            raise WdfsError("%s: not a wdfs image (magic %#x)" % (self.path, self.sb["s_magic"]))
        stored = struct.unpack_from("<I", raw, CKSUM_OFF)[0]
        if zlib.crc32(raw[:CKSUM_OFF]) != stored:
            raise WdfsError("%s: superblock checksum mismatch" % self.path)
        self.bs = self.sb["s_bsize"]
        if self.bs < 4096 or self.bs > 65536 or self.bs & (self.bs - 1):
            raise WdfsError("%s: bad block size %d" % (self.path, self.bs))
        self.nindir = self.bs // 4
        sb = self.sb
        if (sb["s_nblocks"] * self.bs > self.size or not sb["s_itab_start"] < sb["s_data_start"] < sb["s_nblocks"]
                or sb["s_ninodes"] * INODE_SIZE > sb["s_itab_blocks"] * self.bs
                or sb["s_itab_start"] + sb["s_itab_blocks"] > sb["s_data_start"]):
            raise WdfsError("%s: superblock layout does not fit the image" % self.path)

    def close(self):
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- raw access --

    def _pread(self, off, n):
        self.f.seek(off)
        return self.f.read(n)

    def _pwrite(self, off, data):
        self.f.seek(off)
        self.f.write(data)

    def block(self, b):
        if not 0 <= b < self.sb["s_nblocks"]:
            raise WdfsError("block %d is outside the file system (0..%d)" % (b, self.sb["s_nblocks"] - 1))
        data = self._pread(b * self.bs, self.bs)
        return data + bytes(self.bs - len(data))

    def put_block(self, b, data):
        assert len(data) == self.bs
        self._pwrite(b * self.bs, bytes(data))

    def data_block_ok(self, b):
        return self.sb["s_data_start"] <= b < self.sb["s_nblocks"]

    # -- superblock --

    def seal_super(self):
        struct.pack_into(SUPER_FMT, self.sb_raw, 0, *(self.sb[k] for k in SUPER_FIELDS))
        struct.pack_into("<I", self.sb_raw, CKSUM_OFF, zlib.crc32(bytes(self.sb_raw[:CKSUM_OFF])))
        self._pwrite(0, bytes(self.sb_raw))

    # -- inodes --

    def _inode_off(self, ino):
        if not 0 <= ino < self.sb["s_ninodes"]:
            raise WdfsError("inode %d is outside the table (0..%d)" % (ino, self.sb["s_ninodes"] - 1))
        return self.sb["s_itab_start"] * self.bs + ino * INODE_SIZE

    def inode(self, ino):
        return Inode.unpack(self._pread(self._inode_off(ino), INODE_SIZE))

    def put_inode(self, ino, inode):
        self._pwrite(self._inode_off(ino), inode.pack())

    def allocated_inodes(self):
        return [i for i in range(ROOTINO, self.sb["s_ninodes"]) if self.inode(i).mode != 0]

    # -- block pointers --

    def _span(self, level):
        return self.nindir ** level

    def indirect(self, b):
        if not self.data_block_ok(b):
            raise WdfsError("indirect block %d is outside the data area" % b)
        return list(struct.unpack("<%dI" % self.nindir, self.block(b)))

    def bmap(self, inode, lbn):
        if lbn < NDADDR:
            return inode.db[lbn]
        lbn -= NDADDR
        for level in range(1, NIADDR + 1):
            span = self._span(level)
            if lbn < span:
                b = inode.ib[level - 1]
                for lv in range(level, 0, -1):
                    if b == 0:
                        return 0
                    span = self._span(lv - 1)
                    b = self.indirect(b)[lbn // span]
                    lbn %= span
                return b
            lbn -= span
        raise WdfsError("logical block beyond the triple indirect block")

    def pointers(self, ino, inode=None):
        """Every non-zero pointer reachable from inode `ino`, parents before children; a
        pointer outside the data area is listed but not followed, nor is a block seen twice."""
        inode = inode or self.inode(ino)
        out, seen = [], set()
        for i, b in enumerate(inode.db):
            if b:
                out.append(Ptr(("inode", ino, "db", i), 0, i, b))
        lbn = NDADDR
        for i, b in enumerate(inode.ib):
            if b:
                self._walk_ptr(Ptr(("inode", ino, "ib", i), i + 1, lbn, b), out, seen)
            lbn += self._span(i + 1)
        return out

    def _walk_ptr(self, p, out, seen):
        out.append(p)
        if p.level == 0 or not self.data_block_ok(p.blk) or p.blk in seen:
            return
        seen.add(p.blk)
        span = self._span(p.level - 1)
        for i, b in enumerate(self.indirect(p.blk)):
            if b:
                self._walk_ptr(Ptr(("indirect", p.blk, i), p.level - 1, p.lbn + i * span, b), out, seen)

    def put_pointer(self, where, value):
        if where[0] == "inode":
            _, ino, kind, i = where
            inode = self.inode(ino)
            getattr(inode, kind)[i] = value
            self.put_inode(ino, inode)
        else:
            _, blk, i = where
            data = bytearray(self.block(blk))
            struct.pack_into("<I", data, 4 * i, value)
            self.put_block(blk, data)

    # -- files and directories --

    def read(self, ino, limit=1 << 26):
        inode = self.inode(ino)
        size = min(inode.size, limit)
        out = bytearray()
        for lbn in range((size + self.bs - 1) // self.bs):
            b = self.bmap(inode, lbn)
            if b and not self.data_block_ok(b):
                raise WdfsError("inode %d: block %d of logical block %d is outside the data area" % (ino, b, lbn))
            out += self.block(b) if b else bytes(self.bs)
        return bytes(out[:size])

    def entries(self, ino):
        inode = self.inode(ino)
        if not inode.is_dir:
            raise WdfsError("inode %d is not a directory" % ino)
        out = []
        for lbn in range(inode.size // self.bs):
            b = self.bmap(inode, lbn)
            if not b or not self.data_block_ok(b):
                raise WdfsError("directory inode %d: logical block %d has no valid block" % (ino, lbn))
            data = self.block(b)
            for chunk in range(0, self.bs, DIRBLKSIZ):
                off = chunk
                while off < chunk + DIRBLKSIZ:
                    d_ino, reclen, dtype, namlen = struct.unpack_from("<IHBB", data, off)
                    if reclen < DIRHDR or reclen % 4 or off + reclen > chunk + DIRBLKSIZ:
                        raise WdfsError("directory inode %d: block %d offset %d: bad record length %d"
                                        % (ino, b, off, reclen))
                    if d_ino:
                        out.append(Dirent(bytes(data[off + DIRHDR:off + DIRHDR + namlen]), d_ino, dtype,
                                          b, off, reclen))
                    off += reclen
        return out

    def lookup(self, path):
        ino = ROOTINO
        for part in [p for p in path.split("/") if p]:
            hit = [e for e in self.entries(ino) if e.name == part.encode()]
            if not hit:
                return None
            ino = hit[0].ino
        return ino

    def walk(self, max_depth=64):
        """(path, ino, Inode) for the root and everything below it; each directory once."""
        seen = set()
        stack = [("/", ROOTINO, 0)]
        while stack:
            path, ino, depth = stack.pop()
            inode = self.inode(ino)
            yield path, ino, inode
            if not inode.is_dir or ino in seen or depth >= max_depth:
                continue
            seen.add(ino)
            for e in self.entries(ino):
                if e.name in (b".", b".."):
                    continue
                name = e.name.decode(errors="replace")
                stack.append(((path.rstrip("/") + "/" + name), e.ino, depth + 1))
