/*
 * id: print a user's identity (after FreeBSD's id(1), usr.bin/id/id.c 1.12.2.3).
 *   id [user]             uid=1001(x) gid=20(staff) groups=20(staff),0(wheel); an effective
 *                         ID that differs from the real one is added (euid=, egid=)
 *   id -u | -g | -G [-nr] [user]
 * -u the effective user ID, -g the effective group ID, -G all the groups; -n names instead of
 * numbers; -r the real IDs instead of the effective ones. With a user name (or number) the
 * IDs are that user's from /etc/passwd and /etc/group. Exit status 1 for an unknown user.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pwd.h>
#include <grp.h>
#include <err.h>

#define MAXGROUPS 16

static int nflag;

/* An ID as "1001(x)" (just the number if it has no name), or with -n as "x" alone. */
static void print_id(unsigned id, const char *name, int alone)
{
	if (alone && nflag && name != NULL)
		printf("%s", name);
	else if (!alone && name != NULL)
		printf("%u(%s)", id, name);
	else
		printf("%u", id);
}

static const char *user_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	return pw != NULL ? pw->pw_name : NULL;
}

static const char *group_name(gid_t gid)
{
	struct group *gr = getgrgid(gid);

	return gr != NULL ? gr->gr_name : NULL;
}

/* The groups of the user named `name` with group gid, from /etc/group: gid first. */
static int user_groups(const char *name, gid_t gid, gid_t *groups)
{
	struct group *gr;
	int n = 0;

	groups[n++] = gid;
	setgrent();
	while (n < MAXGROUPS && (gr = getgrent()) != NULL) {
		if (gr->gr_gid == gid)
			continue;
		for (char **m = gr->gr_mem; *m != NULL; m++)
			if (strcmp(*m, name) == 0) {
				groups[n++] = gr->gr_gid;
				break;
			}
	}
	endgrent();
	return n;
}

static void usage(void)
{
	fprintf(stderr, "usage: id [user]\n       id -G [-n] [user]\n"
	                "       id -g [-nr] [user]\n       id -u [-nr] [user]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	int c, Gflag = 0, gflag = 0, uflag = 0, rflag = 0, ngroups;
	uid_t ruid = getuid(), euid = geteuid();
	gid_t rgid = getgid(), egid = getegid(), groups[MAXGROUPS];
	struct passwd *pw;

	while ((c = getopt(argc, argv, "Ggnru")) != -1) {
		switch (c) {
		case 'G': Gflag = 1; break;
		case 'g': gflag = 1; break;
		case 'n': nflag = 1; break;
		case 'r': rflag = 1; break;
		case 'u': uflag = 1; break;
		default: usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (Gflag + gflag + uflag > 1 || argc > 1 || ((nflag || rflag) && Gflag + gflag + uflag == 0))
		usage();
	if (argc == 1) {
		char *end;
		unsigned long v = strtoul(argv[0], &end, 10);

		pw = getpwnam(argv[0]);
		if (pw == NULL && *end == '\0' && end != argv[0])
			pw = getpwuid((uid_t)v);
		if (pw == NULL)
			errx(1, "%s: no such user", argv[0]);
		ruid = euid = pw->pw_uid;
		rgid = egid = pw->pw_gid;
		char name[64];
		snprintf(name, sizeof(name), "%s", pw->pw_name);
		ngroups = user_groups(name, rgid, groups);
	} else {
		ngroups = getgroups(MAXGROUPS, groups);
		if (ngroups < 0)
			err(1, "getgroups");
	}
	if (uflag || gflag) {
		unsigned id = uflag ? (rflag ? ruid : euid) : (rflag ? rgid : egid);
		print_id(id, uflag ? user_name(id) : group_name(id), 1);
		printf("\n");
		return 0;
	}
	if (Gflag) {
		for (int i = 0; i < ngroups; i++) {
			printf(i ? " " : "");
			print_id(groups[i], group_name(groups[i]), 1);
		}
		printf("\n");
		return 0;
	}
	printf("uid=");
	print_id(ruid, user_name(ruid), 0);
	if (euid != ruid) {
		printf(" euid=");
		print_id(euid, user_name(euid), 0);
	}
	printf(" gid=");
	print_id(rgid, group_name(rgid), 0);
	if (egid != rgid) {
		printf(" egid=");
		print_id(egid, group_name(egid), 0);
	}
	printf(" groups=");
	for (int i = 0; i < ngroups; i++) {
		printf(i ? "," : "");
		print_id(groups[i], group_name(groups[i]), 0);
	}
	printf("\n");
	return 0;
}
