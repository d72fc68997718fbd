"""wdrun.disks: the disks of one VM (DiskSet), described in the package's manual
(wdrun/__init__.py, "Disks"): the image folder and its images, the disk-model
servers, and the block nodes and devices that attach them to QEMU. Scratch folders
(no --disk-dir, no --keep) lose their images when the process exits; those of dead
processes are swept when the next scratch folder is made.
"""

import atexit
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .config import BUILD, MB, ROOT, parse_disk_model, parse_inject, parse_size
from .errors import DiskError


DISKS_BASE = BUILD / "run" / "disks"
SERVE = ROOT / "tools" / "diskmodel" / "serve"
SERVER_READY_TIMEOUT = 120.0     # seconds for a disk-model server to listen (it may build the filter first)
SERVER_STOP_TIMEOUT = 10.0       # seconds for it to exit after SIGTERM (nbdkit takes about 2)
SUN_PATH_MAX = 100               # a Unix socket path must fit in sockaddr_un.sun_path (108 bytes)
STALE_AGE = 24 * 3600            # seconds: a dead process's scratch folder is removed after this
SCRATCH_RE = re.compile(r"p(\d+)-\d+$")

_scratch_seq = 0
_scratch_dirs = []               # this process's scratch folders, emptied of images at exit


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_images(d):
    for f in list(d.glob("*.img")) + list(d.glob("*.sock")) + list(d.glob("*.ready")):
        f.unlink(missing_ok=True)


def _sweep_stale(base):
    """Scratch folders of processes that are gone: their images now, the rest when old."""
    for d in base.glob("p*-*"):
        m = SCRATCH_RE.match(d.name)
        if m is None or not d.is_dir() or _pid_alive(int(m.group(1))):
            continue
        try:
            _remove_images(d)
            if time.time() - d.stat().st_mtime > STALE_AGE:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass


def _cleanup_scratch():
    for d, sockdir in _scratch_dirs:
        try:
            _remove_images(d)
            if sockdir != d:
                shutil.rmtree(sockdir, ignore_errors=True)
            d.rmdir()                    # only if empty: disk-model stats and logs stay
        except OSError:
            pass


def _new_scratch_dir(bus):
    global _scratch_seq
    base = DISKS_BASE / bus
    if not _scratch_dirs:
        atexit.register(_cleanup_scratch)
    _scratch_seq += 1
    return base / ("p%d-%d" % (os.getpid(), _scratch_seq))


class DiskSet:
    """The disks of one VM (see the module comment): where the images are, making
    them, the disk-model servers and the QEMU arguments that attach them.
      .dir          the folder;  .root_image  the root copy (None with --root md)
      .images       data disk j's image;  .names  its guest name (da1...)
      .stats        data disk j's disk-model stats file (None without a model)
      prepare()     make the images and start the servers (before QEMU)
      qemu_args()   the controller, block nodes and devices
      stop()        stop the servers (after QEMU), many times
      discard()     delete a scratch folder's images now instead of at exit
      read_stats()  the stats files as dicts"""

    def __init__(self, cfg):
        self.cfg = cfg
        self.active = cfg.disks > 0 or cfg.root_kind() == "disk"
        self.scratch = cfg.disk_dir is None and not cfg.keep
        if cfg.disk_dir is not None:
            self.dir = Path(cfg.disk_dir).resolve()
        elif cfg.keep:
            self.dir = DISKS_BASE / cfg.bus / "keep"
        else:
            self.dir = _new_scratch_dir(cfg.bus) if self.active else None
        n = cfg.disks
        self.root_image = self.dir / "root.img" if cfg.root_kind() == "disk" else None
        self.images = [self.dir / ("d%d.img" % j) for j in range(n)]
        self.names = cfg.data_names()
        self.units = [cfg.first_data_unit() + j for j in range(n)]
        self.model = parse_disk_model(cfg.disk_model, n) if cfg.disk_model else None
        sockdir = self.dir
        if self.model and len(str(self.dir / ("d%d.sock" % n))) > SUN_PATH_MAX:
            tag = hashlib.sha1(str(self.dir).encode()).hexdigest()[:12]
            sockdir = Path(tempfile.gettempdir()) / ("wdrun-" + tag)
        self.sockdir = sockdir
        self.sockets = [sockdir / ("d%d.sock" % j) for j in range(n)] if self.model else []
        self.stats = [self.dir / ("d%d.stats" % j) for j in range(n)] if self.model else [None] * n
        self.logs = [self.dir / ("d%d.log" % j) for j in range(n)] if self.model else []
        self.inject = {}             # unit -> [(op, sector, once)]
        for op, specs in (("write", cfg.inject_write), ("read", cfg.inject_read)):
            for spec in specs:
                unit, sector, once = parse_inject(spec, cfg, op)
                self.inject.setdefault(unit, []).append((op, sector, once))
        self.servers = []            # (Popen, log file)
        self._prepared = False

    # -- images --

    def prepare(self):
        if not self.active or self._prepared:
            return
        if self.scratch:
            _sweep_stale(self.dir.parent)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            self.sockdir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise DiskError("cannot make the disk folder %s: %s" % (self.dir, e.strerror))
        if self.scratch:
            _scratch_dirs.append((self.dir, self.sockdir))
        self._prepared = True
        if self.root_image is not None:
            self._make_root()
        size = parse_size(self.cfg.disk_size)
        for img in self.images:
            self._make_data(img, size)
        if self.model:
            self._start_servers()

    def _make_root(self):
        src = self.cfg.root_source()
        if not src.exists():
            raise DiskError("%s does not exist (run make)" % src)
        dst = self.root_image
        if self.cfg.keep and dst.exists():
            if dst.stat().st_mtime >= src.stat().st_mtime:
                self._fsck_root()
                return
            sys.stderr.write("tools/run: %s is newer than the kept %s: copying it again\n" % (src, dst))
        tmp = dst.with_name(dst.name + ".tmp%d" % os.getpid())
        try:
            shutil.copyfile(src, tmp)
            os.replace(tmp, dst)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise DiskError("cannot copy the root image to %s: %s" % (dst, e.strerror))

    def _fsck_root(self):
        """A kept root may not have been unmounted (QEMU killed, Ctrl-a x): wdfs then refuses
        to mount it read-write, so repair it first, as FreeBSD's /etc/rc runs fsck at boot."""
        fsck = BUILD / "host" / "fsck"
        if not fsck.exists():
            raise DiskError("%s does not exist (run make)" % fsck.relative_to(ROOT))
        r = subprocess.run([str(fsck), "-y", str(self.root_image)], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode == 0:
            return
        report = "".join("tools/run: fsck: " + ln + "\n" for ln in r.stdout.splitlines())
        if r.returncode == 1:
            sys.stderr.write("tools/run: the kept root %s was not cleanly unmounted; fsck -y repaired it:\n%s"
                             % (self.root_image, report))
            return
        raise DiskError("the kept root %s is damaged beyond repair (fsck -y exit %d):\n%sdelete it, or boot once "
                        "without --keep (make qemu FRESH=1), for a fresh copy of its source image"
                        % (self.root_image, r.returncode, report))

    def _make_data(self, img, size):
        if self.cfg.keep and img.exists():
            have = img.stat().st_size
            if have != size:
                sys.stderr.write("tools/run: keeping %s of %d bytes (--disk-size asks for %d)\n" % (img, have, size))
            return
        img.unlink(missing_ok=True)
        try:
            r = subprocess.run(["qemu-img", "create", "-q", "-f", "raw", "-o", "preallocation=" + self.cfg.prealloc,
                                str(img), str(size)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
        except OSError as e:
            raise DiskError("cannot run qemu-img (package qemu-utils): %s" % e.strerror)
        if r.returncode != 0:
            raise DiskError("qemu-img create %s failed: %s" % (img, r.stdout.strip()))

    # -- disk-model servers --

    def preset_of(self, j):
        """The disk-model preset data disk j is served with (None without a model)."""
        if not self.model:
            return None
        presets = self.model[0]
        return presets[j] if len(presets) > 1 else presets[0]

    def _start_servers(self):
        params = self.model[1]
        for j, img in enumerate(self.images):
            preset = self.preset_of(j)
            ready = self.dir / ("d%d.ready" % j)
            ready.unlink(missing_ok=True)
            extra = []
            for p in params:
                if p == "trace=on":
                    extra.append("trace=%s" % (self.dir / ("d%d.trace.csv" % j)))
                elif p == "wlog=on":
                    extra.append("wlog=%s" % (self.dir / ("d%d.wlog" % j)))
                elif p not in ("trace=off", "wlog=off"):
                    extra.append(p)
            argv = [str(SERVE), "--ready", str(ready), "--exit-with-parent", preset, str(img),
                    str(self.sockets[j]), "stats=%s" % self.stats[j]] + extra
            if self.cfg.verbose:
                sys.stderr.write("tools/run: " + " ".join(shlex.quote(a) for a in argv) + "\n")
            log = open(self.logs[j], "wb")
            try:
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=ROOT,
                                        start_new_session=True)
            except OSError as e:
                log.close()
                raise DiskError("cannot start %s: %s" % (SERVE, e.strerror))
            self.servers.append((proc, log, ready))
        deadline = time.monotonic() + SERVER_READY_TIMEOUT
        for j, (proc, log, ready) in enumerate(self.servers):
            while not (ready.exists() and ready.stat().st_size > 0):
                if proc.poll() is not None:
                    raise DiskError("the disk-model server for %s exited with status %d:\n%s"
                                    % (self.names[j], proc.returncode, self._log_tail(j)))
                if time.monotonic() > deadline:
                    raise DiskError("the disk-model server for %s did not listen within %g s:\n%s"
                                    % (self.names[j], SERVER_READY_TIMEOUT, self._log_tail(j)))
                time.sleep(0.05)

    def _log_tail(self, j, n=15):
        try:
            text = self.logs[j].read_text(errors="replace").rstrip("\n")
        except OSError:
            return "(no log)"
        return "\n".join("  | " + ln for ln in text.split("\n")[-n:])

    def stop(self):
        """SIGTERM every server, wait for all of them (they write the final stats)."""
        if not self.servers:
            return
        for proc, _, _ in self.servers:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + SERVER_STOP_TIMEOUT
        for proc, log, ready in self.servers:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
            ready.unlink(missing_ok=True)
        for s in self.sockets:
            s.unlink(missing_ok=True)
        self.servers = []
        if self.cfg.verbose:
            sys.stderr.write("tools/run: disk-model statistics and logs in %s (%s)\n"
                             % (self.dir, " ".join(p.name for p in self.stats + self.logs)))

    def discard(self):
        """Delete a scratch folder's images now (after stop()), not at exit; no-op otherwise."""
        if self.scratch and self._prepared:
            _remove_images(self.dir)

    def read_stats(self):
        """Data disk j's last disk-model statistics as {key: number or string}."""
        out = []
        for path in self.stats:
            d = {}
            if path is not None and path.exists():
                for line in path.read_text(errors="replace").splitlines():
                    key, sep, value = line.partition("=")
                    if sep:
                        try:
                            d[key.strip()] = float(value) if "." in value else int(value)
                        except ValueError:
                            d[key.strip()] = value.strip()
            out.append(d)
        return out

    # -- QEMU --

    def qemu_args(self):
        if not self.active:
            return []
        cfg = self.cfg
        if cfg.bus == "scsi":
            args = ["-device", "virtio-scsi-pci,id=scsi0,disable-modern=on"]
        else:
            args = ["-device", "ich9-ahci,id=ahci"]
        if self.root_image is not None:
            args += _blockdev({"driver": "file", "node-name": "rootf", "filename": str(self.root_image)})
            args += self._blkdebug(0, "rootf", "dbgroot")
            args += _blockdev({"driver": "raw", "node-name": "root",
                               "file": "dbgroot" if self.inject.get(0) else "rootf"})
            args += self._device("root", 0)
        for j, unit in enumerate(self.units):
            args += self._data_nodes(j, unit)
        return args

    def _device(self, node, unit):
        if self.cfg.bus == "scsi":
            dev = "scsi-hd,drive=%s,bus=scsi0.0,scsi-id=%d,lun=0" % (node, unit)
        else:
            dev = "ide-hd,drive=%s,bus=ahci.%d" % (node, unit)
        return ["-device", dev + ",werror=report,rerror=report"]

    def _blkdebug(self, unit, below, name):
        """The blkdebug node `name` over node `below` for the errors injected on `unit` (or nothing)."""
        rules = self.inject.get(unit)
        if not rules:
            return []
        # raw emits read_aio/write_aio on its file child; errno 5 = EIO (QEMU 7.2's
        # block/raw-format.c and qapi/block-core.json: docs/sources.md [@qemu-blkdebug]).
        inject = [{"event": "%s_aio" % op, "errno": 5, "sector": sector, "once": once} for op, sector, once in rules]
        return _blockdev({"driver": "blkdebug", "node-name": name, "image": below, "inject-error": inject})

    def _data_nodes(self, j, unit):
        """Data disk j, bottom up: file or nbd, blkdebug, raw, throttle; then the device."""
        args = []
        if self.model:
            bottom = {"driver": "nbd", "node-name": "nbd%d" % j,
                      "server": {"type": "unix", "path": str(self.sockets[j])}}
        else:
            bottom = {"driver": "file", "node-name": "f%d" % j, "filename": str(self.images[j])}
        args += _blockdev(bottom)
        below = bottom["node-name"]
        if self.inject.get(unit):
            args += self._blkdebug(unit, below, "dbg%d" % j)
            below = "dbg%d" % j
        args += _blockdev({"driver": "raw", "node-name": "r%d" % j, "file": below})
        top = "r%d" % j
        if self.cfg.throttle:
            bps = int(round(self.cfg.throttle * MB))
            # A throttle filter node; its own group, so each disk gets the whole limit (the
            # drives of one group share it: docs/sources.md [@qemu-throttle]).
            args += ["-object", json.dumps({"qom-type": "throttle-group", "id": "tg%d" % j,
                                            "limits": {"bps-read": bps, "bps-write": bps}})]
            args += _blockdev({"driver": "throttle", "node-name": "t%d" % j, "throttle-group": "tg%d" % j,
                               "file": top})
            top = "t%d" % j
        return args + self._device(top, unit)

    def describe(self):
        """One line per disk for -v."""
        lines = []
        if self.root_image is not None:
            lines.append("%s0 (root): %s" % (self.cfg.prefix(), self.root_image))
        for j, name in enumerate(self.names):
            how = "throttled to %g MB/s" % self.cfg.throttle if self.cfg.throttle else (
                "disk model %s via %s" % (",".join([self.preset_of(j)] + self.model[1]), self.sockets[j])
                if self.model else "unlimited")
            lines.append("%s: %s, %s" % (name, self.images[j], how))
        return lines


def _blockdev(node):
    return ["-blockdev", json.dumps(node, separators=(",", ":"))]
