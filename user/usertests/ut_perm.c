/*
 * ut_perm.c: credentials and permissions - getuid(2) and friends, setuid/seteuid/setgid/
 * setegid/setgroups/getgroups by FreeBSD 4's rules, kill(2) across users, and the permission
 * checks a process that is not root meets: EACCES for reading, writing, searching and
 * executing, EPERM for chmod/chown/utimes of another's file and in a sticky directory (but
 * chown(-1, -1) is a no-op for anyone), the owner's rules for chmod and chown, mknod of a FIFO
 * by a user, the set-user-ID and set-group-ID bits taking effect at exec and being cleared by a
 * write, a truncation, a writable shared mapping or a chown; and umask(2).
 *
 * The "test users" are plain numbers: uid 1001 and 1002 in group 100 (wdrain needs no
 * /etc/passwd entry to run as a user). as_user() runs a part of a case in a child process that
 * has given up root for one of them; a failure there is reported by that child.
 */
#include "usertests.h"
#include <sys/mman.h>
#include <sys/wait.h>

#define U1    1001
#define U2    1002
#define GRP   100
#define PDIR  "/tmp/ut/perm"           /* each case makes it afresh (perm_dir) */

/*
 * Run fn in a child process as user uid, group gid and no other group. 0 when it passed; a
 * child that failed has printed its FAIL line, and this process (the case) exits with it.
 */
static int as_user(uid_t uid, gid_t gid, void (*fn)(void))
{
	pid_t pid;
	int code;

	fflush(stdout);
	if ((pid = fork()) < 0) {
		ut_fail("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (setgroups(1, &gid) < 0 || setgid(gid) < 0 || setuid(uid) < 0) {
			ut_fail("becoming uid %u gid %u: %s", uid, gid, strerror(errno));
			exit(1);
		}
		fn();
		fflush(stdout);
		exit(ut_failed() ? 1 : 0);
	}
	ut_waitexit(pid, &code);
	if (code == 1)
		exit(1);
	if (code != 0) {
		ut_fail("the part run as uid %u ended with status %d", uid, code);
		return -1;
	}
	return 0;
}

/* A file of `mode` (exactly: umask aside) owned by uid:gid, with a line of text in it. */
static int mkfile(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	if (fd < 0)
		return -1;
	if (write(fd, "data\n", 5) != 5 || fchown(fd, uid, gid) < 0 || fchmod(fd, mode) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* A fresh, empty PDIR (root's, 0755). */
static int perm_dir(void)
{
	ut_rmtree(PDIR);
	return mkdir(PDIR, 0755);
}

static mode_t modeof(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_mode & ALLPERMS : (mode_t)-1;
}

/* ---- credentials ---------------------------------------------------------------------------- */

static void creds_as_user(void)
{
	gid_t groups[20];

	CHECK(getuid() == U1 && geteuid() == U1 && getgid() == GRP && getegid() == GRP,
	      "after setuid: uid %u euid %u gid %u egid %u", getuid(), geteuid(), getgid(), getegid());
	CHECK(getgroups(0, NULL) == 1 && getgroups(20, groups) == 1 && groups[0] == GRP,
	      "groups after setgroups(1, {%d})", GRP);
}

/* A non-root process cannot take root, another user, or other groups; kill(2) across users. */
static void creds_denied(void)
{
	gid_t g = 0;

	EXPECT_ERR(setuid(0), EPERM);
	EXPECT_ERR(seteuid(0), EPERM);
	EXPECT_ERR(setuid(U2), EPERM);
	EXPECT_ERR(setgid(0), EPERM);
	EXPECT_ERR(setegid(0), EPERM);
	EXPECT_ERR(setgroups(1, &g), EPERM);
	CHECK(setuid(U1) == 0 && setgid(GRP) == 0, "setuid/setgid to the IDs it has: %s", strerror(errno));
	EXPECT_ERR(kill(getppid(), 0), EPERM);              /* the case runs as root */
	CHECK(kill(getpid(), 0) == 0, "kill(self, 0): %s", strerror(errno));
}

UT_CASE(t_creds)
{
	gid_t groups[20], many[20] = { 0 };
	pid_t pid;
	int code;

	CHECK(getuid() == 0 && geteuid() == 0 && getgid() == 0 && getegid() == 0,
	      "usertests should run as root: uid %u euid %u gid %u egid %u", getuid(), geteuid(),
	      getgid(), getegid());
	CHECK(getgroups(20, groups) >= 1 && groups[0] == 0, "root's first group is not wheel (0)");
	EXPECT_ERR(setgroups(17, many), EINVAL);           /* more than NGROUPS */
	EXPECT_ERR(getgroups(1, (gid_t *)1), EFAULT);
	if ((pid = fork()) == 0) {
		gid_t three[3] = { 5, 7, GRP };
		CHECK(setgroups(3, three) == 0 && getegid() == 5 && getgroups(20, groups) == 3 &&
		      groups[2] == GRP, "setgroups: the first group becomes the effective gid");
		EXPECT_ERR(getgroups(2, groups), EINVAL);       /* too small for them */
		CHECK(setgroups(0, NULL) == 0 && getgroups(0, NULL) == 1 && getegid() == 5,
		      "setgroups(0) keeps only the effective gid");
		exit(ut_failed() ? 1 : 0);
	}
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "the setgroups child ended with %d", code);
	/* seteuid and the saved uid: root can step down and back, until setuid drops all three */
	if ((pid = fork()) == 0) {
		CHECK(seteuid(U1) == 0 && geteuid() == U1 && getuid() == 0, "seteuid(%d): euid %u uid %u",
		      U1, geteuid(), getuid());
		EXPECT_ERR(open("/etc/rc", O_WRONLY), EACCES);
		CHECK(seteuid(0) == 0 && geteuid() == 0, "seteuid back to the real uid 0: %s", strerror(errno));
		CHECK(setuid(U1) == 0 && getuid() == U1 && geteuid() == U1, "setuid(%d) as root", U1);
		EXPECT_ERR(seteuid(0), EPERM);                  /* the saved uid went too */
		exit(ut_failed() ? 1 : 0);
	}
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "the seteuid child ended with %d", code);
	if (as_user(U1, GRP, creds_as_user) < 0 || as_user(U1, GRP, creds_denied) < 0)
		return;
}

/* ---- permission checks ---------------------------------------------------------------------- */

/* As U1 in PDIR (root's, 0755): what the permission bits refuse. */
static void denied_as_user(void)
{
	char *argv[] = { "noexec", NULL };
	struct timeval tv[2] = { { 1, 0 }, { 2, 0 } };
	struct stat st;
	int fd;

	EXPECT_ERR(open(PDIR "/f644", O_WRONLY), EACCES);   /* write */
	EXPECT_ERR(open(PDIR "/f644", O_RDWR), EACCES);
	EXPECT_ERR(open(PDIR "/f644", O_RDONLY | O_TRUNC), EACCES);
	EXPECT_ERR(truncate(PDIR "/f644", 0), EACCES);
	EXPECT_ERR(open(PDIR "/f000", O_RDONLY), EACCES);   /* read */
	EXPECT_ERR(open(PDIR "/d700", O_RDONLY), EACCES);   /* a directory's listing */
	EXPECT_ERR(stat(PDIR "/d700/inside", &st), EACCES); /* search */
	EXPECT_ERR(chdir(PDIR "/d700"), EACCES);
	EXPECT_ERR(execve(PDIR "/noexec", argv, NULL), EACCES);   /* execute: no x bit for us */
	EXPECT_ERR(execve(PDIR "/d700/inside", argv, NULL), EACCES);
	EXPECT_ERR(open(PDIR "/new", O_CREAT | O_WRONLY, 0644), EACCES);   /* write the directory */
	EXPECT_ERR(mkdir(PDIR "/newdir", 0755), EACCES);
	EXPECT_ERR(unlink(PDIR "/f644"), EACCES);
	EXPECT_ERR(rename(PDIR "/f644", PDIR "/moved"), EACCES);
	EXPECT_ERR(symlink("f644", PDIR "/link"), EACCES);
	EXPECT_ERR(link(PDIR "/f644", PDIR "/hard"), EACCES);
	EXPECT_ERR(mkfifo(PDIR "/fifo", 0644), EACCES);
	EXPECT_ERR(chmod(PDIR "/f644", 0666), EPERM);      /* not the owner */
	EXPECT_ERR(chown(PDIR "/f644", U1, GRP), EPERM);
	EXPECT_ERR(utimes(PDIR "/f644", tv), EPERM);
	EXPECT_ERR(utimes(PDIR "/f644", NULL), EACCES);     /* "now" needs write permission */
	EXPECT_ERR(mknod(PDIR "/dev", S_IFCHR | 0600, 0), EPERM);
	EXPECT_ERR(mknod(PDIR "/fifo", S_IFIFO | 0644, 0), EACCES);   /* a FIFO needs no privilege */
	EXPECT_ERR(mknod(PDIR "/d700/fifo", S_IFIFO | 0644, 0), EACCES);   /* search, not privilege */
	EXPECT_ERR(access(PDIR "/f644", W_OK), EACCES);
	/* chown to "as it is" changes nothing, so it is no one's business (FreeBSD's ufs_setattr) */
	CHECK(chown(PDIR "/f644", -1, -1) == 0 && lchown(PDIR "/f644", -1, -1) == 0,
	      "chown(-1, -1) of another's file: %s", strerror(errno));
	CHECK((fd = open(PDIR "/f644", O_RDONLY)) >= 0 && fchown(fd, -1, -1) == 0,
	      "fchown(-1, -1) of another's file: %s", strerror(errno));
	close(fd);
	EXPECT_ERR(chown(PDIR "/d700/inside", -1, -1), EACCES);
	CHECK(access(PDIR "/f644", R_OK) == 0, "access R_OK of a 0644 file: %s", strerror(errno));
	CHECK((fd = open(PDIR "/f644", O_RDONLY)) >= 0, "reading a 0644 file: %s", strerror(errno));
	close(fd);
	CHECK(stat(PDIR "/d700", &st) == 0, "stat of the unsearchable directory itself: %s", strerror(errno));
	/* the group's bits for a member, the owner's alone for the owner */
	CHECK((fd = open(PDIR "/g640", O_RDONLY)) >= 0, "group member reading a 0640 file: %s",
	      strerror(errno));
	close(fd);
	EXPECT_ERR(open(PDIR "/own077", O_RDONLY), EACCES);
	CHECK(utimes(PDIR "/w666", NULL) == 0, "utimes(NULL) with write permission: %s", strerror(errno));
}

/* As U1 in PDIR/mine (0777): the owner's rights and limits. */
static void owner_as_user(void)
{
	const char *f = PDIR "/mine/f";
	struct stat st;
	int fd;

	CHECK((fd = open(f, O_CREAT | O_WRONLY, 0644)) >= 0, "create in a 0777 directory: %s", strerror(errno));
	CHECK(fstat(fd, &st) == 0 && st.st_uid == U1 && st.st_gid == 7,
	      "a new file belongs to uid %u gid %u, expected %d and its directory's group 7", st.st_uid,
	      st.st_gid, U1);
	close(fd);
	CHECK(chmod(f, 0600) == 0 && modeof(f) == 0600, "the owner's chmod: %s", strerror(errno));
	EXPECT_ERR(chmod(f, 01644), EFTYPE);                /* sticky on a file: root only */
	EXPECT_ERR(chmod(f, 02644), EPERM);                 /* set-group-ID, not in group 7 */
	EXPECT_ERR(chown(f, U2, -1), EPERM);                /* giving it away */
	EXPECT_ERR(chown(f, -1, 0), EPERM);                 /* a group she is not in */
	CHECK(chown(f, -1, GRP) == 0 && stat(f, &st) == 0 && st.st_gid == GRP,
	      "chown to her own group: %s", strerror(errno));
	CHECK(chmod(f, 02755) == 0 && modeof(f) == 02755, "set-group-ID in her own group: %s", strerror(errno));
	CHECK(chown(f, U1, GRP) == 0 && modeof(f) == 02755, "a chown that changes nothing cleared the bits");
	CHECK((fd = open(f, O_RDONLY)) >= 0 && fchown(fd, -1, GRP) == 0 && fchmod(fd, 0644) == 0 &&
	      modeof(f) == 0644, "fchown and fchmod of her own file: %s", strerror(errno));
	close(fd);
	CHECK(unlink(f) == 0, "unlink of her own file: %s", strerror(errno));
	CHECK(mknod(f, S_IFIFO | 0640, 0) == 0 && stat(f, &st) == 0 && S_ISFIFO(st.st_mode) &&
	      st.st_uid == U1 && (st.st_mode & ALLPERMS) == 0640, "a user's mknod of a FIFO: %s",
	      strerror(errno));
	CHECK(unlink(f) == 0, "unlink of her FIFO: %s", strerror(errno));
}

UT_CASE(t_perm_access)
{
	char *argv[] = { "noexec", NULL };

	CHECK(perm_dir() == 0 && mkdir(PDIR "/d700", 0700) == 0 && mkdir(PDIR "/mine", 0777) == 0 &&
	      chmod(PDIR "/mine", 0777) == 0 && chown(PDIR "/mine", 0, 7) == 0, "setup: %s", strerror(errno));
	CHECK(mkfile(PDIR "/f644", 0644, 0, 0) == 0 && mkfile(PDIR "/f000", 0, 0, 0) == 0 &&
	      mkfile(PDIR "/noexec", 0644, 0, 0) == 0 && mkfile(PDIR "/d700/inside", 0755, 0, 0) == 0 &&
	      mkfile(PDIR "/g640", 0640, 0, GRP) == 0 && mkfile(PDIR "/own077", 0077, U1, GRP) == 0 &&
	      mkfile(PDIR "/w666", 0666, 0, 0) == 0, "files: %s", strerror(errno));
	if (as_user(U1, GRP, denied_as_user) < 0 || as_user(U1, GRP, owner_as_user) < 0)
		return;
	/* root: reads and writes anything, but executes only what has an execute bit */
	int fd = open(PDIR "/f000", O_RDWR);
	CHECK(fd >= 0, "root opening a mode 0 file: %s", strerror(errno));
	close(fd);
	EXPECT_ERR(execve(PDIR "/noexec", argv, NULL), EACCES);
	CHECK(access(PDIR "/f000", R_OK | W_OK) == 0, "access as root: %s", strerror(errno));
	EXPECT_ERR(access(PDIR "/f000", X_OK | 8), EINVAL);
	EXPECT_ERR(chmod("/tmp/ut/nonexistent", 0644), ENOENT);
	EXPECT_ERR(chown("/tmp/ut/nonexistent", 0, 0), ENOENT);
	EXPECT_ERR(fchmod(-1, 0644), EBADF);
	EXPECT_ERR(fchown(99, 0, 0), EBADF);
	EXPECT_ERR(chmod((char *)1, 0644), EFAULT);
	EXPECT_ERR(chmod("/dev/null", 0600), EOPNOTSUPP);   /* devfs keeps its modes */
	/* root's chown(-1, -1) leaves even the change time; one naming the same owner sets it */
	struct stat st0, st1;
	CHECK(stat(PDIR "/f644", &st0) == 0, "stat: %s", strerror(errno));
	while (time(NULL) <= st0.st_ctime)
		usleep(20000);
	CHECK(chown(PDIR "/f644", -1, -1) == 0 && stat(PDIR "/f644", &st1) == 0 &&
	      st1.st_ctime == st0.st_ctime, "root's chown(-1, -1) moved the change time by %lld s",
	      (long long)(st1.st_ctime - st0.st_ctime));
	CHECK(chown(PDIR "/f644", 0, 0) == 0 && stat(PDIR "/f644", &st1) == 0 &&
	      st1.st_ctime > st0.st_ctime, "a chown to the same owner did not set the change time");
}

/* ---- the sticky directory ------------------------------------------------------------------- */

static void sticky_u1(void)
{
	CHECK(mkfile(PDIR "/t/a", 0666, U1, GRP) == 0 && mkfile(PDIR "/t/keep", 0666, U1, GRP) == 0 &&
	      mkfile(PDIR "/open/a", 0666, U1, GRP) == 0, "U1's files: %s", strerror(errno));
}

static void sticky_u2(void)
{
	CHECK(mkfile(PDIR "/t/b", 0644, U2, GRP) == 0, "U2's file: %s", strerror(errno));
	EXPECT_ERR(unlink(PDIR "/t/a"), EPERM);             /* another's file, another's directory */
	EXPECT_ERR(rename(PDIR "/t/a", PDIR "/t/c"), EPERM);
	EXPECT_ERR(rename(PDIR "/t/b", PDIR "/t/a"), EPERM);   /* replacing another's file */
	CHECK(rename(PDIR "/t/b", PDIR "/t/c") == 0, "renaming her own file: %s", strerror(errno));
	CHECK(unlink(PDIR "/t/c") == 0, "removing her own file: %s", strerror(errno));
	CHECK(unlink(PDIR "/open/a") == 0, "a directory without the sticky bit: %s", strerror(errno));
}

/* The directory's owner may remove anyone's file from it. */
static void sticky_dirowner(void)
{
	CHECK(unlink(PDIR "/t/keep") == 0, "the sticky directory's owner removing U1's file: %s",
	      strerror(errno));
}

UT_CASE(t_perm_sticky)
{
	CHECK(perm_dir() == 0 && mkdir(PDIR "/t", 0777) == 0 && chmod(PDIR "/t", 01777) == 0 &&
	      mkdir(PDIR "/open", 0777) == 0 && chmod(PDIR "/open", 0777) == 0, "setup: %s", strerror(errno));
	CHECK(modeof(PDIR "/t") == 01777, "mode %#o, expected 01777", modeof(PDIR "/t"));
	if (as_user(U1, GRP, sticky_u1) < 0 || as_user(U2, GRP, sticky_u2) < 0)
		return;
	CHECK(unlink(PDIR "/t/a") == 0, "root removing from a sticky directory: %s", strerror(errno));
	CHECK(chown(PDIR "/t", U2, GRP) == 0, "chown: %s", strerror(errno));
	as_user(U2, GRP, sticky_dirowner);
}

/* ---- set-user-ID and set-group-ID ------------------------------------------------------------ */

/* Run `cmd args` with its output in buf (at most n-1 bytes, NUL-ended); its exit status. */
static int run_output(char *const argv[], char *buf, size_t n)
{
	int p[2], code;
	ssize_t got, len = 0;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execve(argv[0], argv, NULL);
		_exit(127);
	}
	close(p[1]);
	while (len < (ssize_t)n - 1 && (got = read(p[0], buf + len, n - 1 - len)) > 0)
		len += got;
	buf[len] = 0;
	close(p[0]);
	ut_waitexit(pid, &code);
	return code;
}

static void setid_as_user(void)
{
	char out[64];
	char *euid[] = { PDIR "/id", "-u", NULL }, *ruid[] = { PDIR "/id", "-ur", NULL };
	char *egid[] = { PDIR "/id", "-g", NULL };
	int fd;

	CHECK(run_output(euid, out, sizeof out) == 0 && strcmp(out, "1002\n") == 0,
	      "the set-user-ID program's effective uid: \"%s\", expected 1002", out);
	CHECK(run_output(ruid, out, sizeof out) == 0 && strcmp(out, "1001\n") == 0,
	      "its real uid: \"%s\", expected 1001", out);
	CHECK(run_output(egid, out, sizeof out) == 0 && strcmp(out, "30\n") == 0,
	      "its effective gid: \"%s\", expected the file's group 30", out);
	/* a write by someone other than root takes the bits away (the file is 06777 for this) */
	CHECK((fd = open(PDIR "/id", O_WRONLY | O_APPEND)) >= 0, "open for writing: %s", strerror(errno));
	CHECK(write(fd, "", 0) == 0 && modeof(PDIR "/id") == 06777, "an empty write cleared the bits");
	CHECK(write(fd, "x", 1) == 1, "write: %s", strerror(errno));
	close(fd);
	CHECK(modeof(PDIR "/id") == 0777, "after a write by uid %d: mode %#o, expected 0777", U1,
	      modeof(PDIR "/id"));
	CHECK(run_output(euid, out, sizeof out) == 0 && strcmp(out, "1001\n") == 0,
	      "without the bit the program runs as its caller: \"%s\"", out);
}

static void setid_chown_as_owner(void)
{
	CHECK(chown(PDIR "/mine", -1, GRP) == 0, "chown of her own file to her group: %s", strerror(errno));
	CHECK(modeof(PDIR "/mine") == 0755, "a chown by its owner left mode %#o, expected 0755",
	      modeof(PDIR "/mine"));
}

/* A fresh PDIR with PDIR/id, a copy of /bin/id owned by U2, group 30, mode 06777. */
static void setid_program(void)
{
	CHECK(perm_dir() == 0, "mkdir: %s", strerror(errno));
	CHECK(ut_copyfile("/bin/id", PDIR "/id") == 0, "copying /bin/id: %s", strerror(errno));
	CHECK(chown(PDIR "/id", U2, 30) == 0 && chmod(PDIR "/id", 06777) == 0 && modeof(PDIR "/id") == 06777,
	      "making it set-ID: %s", strerror(errno));
}

UT_CASE(t_setuid)
{
	int out;

	setid_program();
	if (as_user(U1, GRP, setid_as_user) < 0)
		return;
	/* root's writes keep the bits; a non-root chown takes them away */
	CHECK(chmod(PDIR "/id", 06755) == 0 && (out = open(PDIR "/id", O_WRONLY | O_APPEND)) >= 0 &&
	      write(out, "y", 1) == 1 && close(out) == 0 && modeof(PDIR "/id") == 06755,
	      "a write by root changed the mode to %#o", modeof(PDIR "/id"));
	CHECK(mkfile(PDIR "/mine", 06755, U1, 0) == 0, "setup: %s", strerror(errno));
	as_user(U1, GRP, setid_chown_as_owner);
}

/*
 * Rewriting a set-ID program by other means than write(2) takes its bits too: ftruncate,
 * truncate, O_TRUNC, and a shared mapping it could store into (at once, whether it stores or
 * not). Read-only and private mappings leave them. Each part below starts from mode 06777.
 */
static off_t sizeof_id(void)
{
	struct stat st;

	return stat(PDIR "/id", &st) == 0 ? st.st_size : -1;
}

static void rewrite_truncate_as_user(void)
{
	int fd = open(PDIR "/id", O_RDWR);

	CHECK(fd >= 0 && ftruncate(fd, sizeof_id()) == 0, "ftruncate: %s", strerror(errno));
	close(fd);
	CHECK(modeof(PDIR "/id") == 0777, "after a user's ftruncate: mode %#o, expected 0777",
	      modeof(PDIR "/id"));
}

static void rewrite_truncate_path_as_user(void)
{
	CHECK(truncate(PDIR "/id", sizeof_id()) == 0, "truncate: %s", strerror(errno));
	CHECK(modeof(PDIR "/id") == 0777, "after a user's truncate: mode %#o, expected 0777",
	      modeof(PDIR "/id"));
}

static void *map_id(int oflags, int prot, int flags)
{
	int fd = open(PDIR "/id", oflags);
	void *p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, prot, flags, fd, 0);

	if (p == MAP_FAILED)
		ut_fail("mapping the program (open flags %#x, prot %#x, flags %#x): %s", oflags, prot,
		        flags, strerror(errno));
	close(fd);
	return p;
}

static void rewrite_map_readonly_as_user(void)
{
	char *p = map_id(O_RDONLY, PROT_READ, MAP_SHARED), *q = map_id(O_RDWR, PROT_READ | PROT_WRITE,
	                                                                MAP_PRIVATE);

	if (q != MAP_FAILED)
		q[0] ^= 1;                      /* the process's own copy */
	CHECK(modeof(PDIR "/id") == 06777, "a read-only or private mapping took the bits: mode %#o",
	      modeof(PDIR "/id"));
	munmap(p, 4096);
	munmap(q, 4096);
}

static void rewrite_map_shared_as_user(void)
{
	char out[64], *euid[] = { PDIR "/id", "-u", NULL };
	char *p = map_id(O_RDWR, PROT_READ | PROT_WRITE, MAP_SHARED);

	CHECK(modeof(PDIR "/id") == 0777, "a user's writable shared mapping left mode %#o, expected 0777",
	      modeof(PDIR "/id"));
	if (p == MAP_FAILED)
		return;
	((volatile char *)p)[0] = p[0];         /* a store: the program stays a program */
	CHECK(msync(p, 4096, MS_SYNC) == 0 && munmap(p, 4096) == 0, "msync, munmap: %s", strerror(errno));
	CHECK(run_output(euid, out, sizeof out) == 0 && strcmp(out, "1001\n") == 0,
	      "the rewritten program runs as \"%s\", expected its caller 1001", out);
}

static void rewrite_otrunc_as_user(void)
{
	int fd = open(PDIR "/id", O_WRONLY | O_TRUNC);

	CHECK(fd >= 0, "open with O_TRUNC: %s", strerror(errno));
	close(fd);
	CHECK(modeof(PDIR "/id") == 0777 && sizeof_id() == 0, "after a user's O_TRUNC: mode %#o size %lld",
	      modeof(PDIR "/id"), (long long)sizeof_id());
}

/* Run part as U1 on the program made set-ID again; as_user's answer. */
static int rewrite_part(void (*part)(void))
{
	if (chmod(PDIR "/id", 06777) < 0) {
		ut_fail("chmod 06777: %s", strerror(errno));
		return -1;
	}
	return as_user(U1, GRP, part);
}

UT_CASE(t_setuid_rewrite)
{
	int fd;
	char *p;

	setid_program();
	if (rewrite_part(rewrite_truncate_as_user) < 0 || rewrite_part(rewrite_truncate_path_as_user) < 0 ||
	    rewrite_part(rewrite_map_readonly_as_user) < 0 || rewrite_part(rewrite_map_shared_as_user) < 0)
		return;
	/* root keeps the bits, as its writes do */
	CHECK(chmod(PDIR "/id", 06777) == 0 && (fd = open(PDIR "/id", O_RDWR)) >= 0 &&
	      ftruncate(fd, sizeof_id()) == 0, "root's ftruncate: %s", strerror(errno));
	close(fd);
	p = map_id(O_RDWR, PROT_READ | PROT_WRITE, MAP_SHARED);
	munmap(p, 4096);
	CHECK(modeof(PDIR "/id") == 06777, "root's ftruncate and mapping left mode %#o, expected 06777",
	      modeof(PDIR "/id"));
	rewrite_part(rewrite_otrunc_as_user);
}

/* ---- umask ------------------------------------------------------------------------------------ */

UT_CASE(t_umask)
{
	const char *d = "/tmp/ut/um";
	pid_t pid;
	int fd, code;

	CHECK(umask(077) == 022, "the umask inherited from init is not 022");
	CHECK(umask(077) == 077, "umask does not return the mask just set");
	CHECK(mkdir(d, 0777) == 0 && modeof(d) == 0700, "mkdir 0777 under umask 077 gave %#o", modeof(d));
	CHECK((fd = open("/tmp/ut/um/f", O_CREAT | O_WRONLY, 0151)) >= 0, "create: %s", strerror(errno));
	close(fd);
	CHECK(modeof("/tmp/ut/um/f") == 0100, "mode 0151 under umask 077 gave %#o, expected 0100",
	      modeof("/tmp/ut/um/f"));
	CHECK(mkfifo("/tmp/ut/um/p", 0666) == 0 && modeof("/tmp/ut/um/p") == 0600, "mkfifo gave %#o",
	      modeof("/tmp/ut/um/p"));
	CHECK(symlink("f", "/tmp/ut/um/l") == 0 && modeof("/tmp/ut/um/l") == 0700, "symlink gave %#o",
	      modeof("/tmp/ut/um/l"));
	CHECK(chmod("/tmp/ut/um/f", 0666) == 0 && modeof("/tmp/ut/um/f") == 0666, "chmod is not masked");
	if ((pid = fork()) == 0)
		exit(umask(0) == 077 ? 0 : 1);
	CHECK(ut_waitexit(pid, &code) == pid && code == 0, "fork did not keep the umask");
	umask(0);
	CHECK((fd = open("/tmp/ut/um/g", O_CREAT | O_WRONLY, 07777)) >= 0 && close(fd) == 0 &&
	      modeof("/tmp/ut/um/g") == 06777, "umask 0: mode 07777 gave %#o (the sticky bit is dropped "
	      "from a new file, as FreeBSD's open does)", modeof("/tmp/ut/um/g"));
	CHECK(umask(01022) == 0 && umask(022) == 01022, "umask keeps its 07777 bits");
}
