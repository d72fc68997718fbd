/*
 * pwd.c: getpwnam, getpwuid, and getgrent, getgrnam, getgrgid (interfaces: <pwd.h>, <grp.h>).
 * A lookup reads the file from the start and splits the matching line in place in a static
 * buffer, into which the static entry's fields point.
 */
#include <pwd.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DB_LINE    512
#define DB_MAXMEM  32               /* group members kept */

static char pwline[DB_LINE], grline[DB_LINE];
static struct passwd pwent;
static struct group grent;
static char *grmem[DB_MAXMEM + 1];

/* Split line at ':' into at most n fields; the number found. */
static int split(char *line, char **f, int n)
{
	int i = 0;

	line[strcspn(line, "\n")] = '\0';
	f[i++] = line;
	for (char *p = line; *p != '\0' && i < n; p++) {
		if (*p == ':') {
			*p = '\0';
			f[i++] = p + 1;
		}
	}
	return i;
}

/* A decimal ID field; -1 if it is not one. */
static long id_field(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s == '\0' || *end != '\0' || v < 0) ? -1 : v;
}

/* The first line of /etc/passwd whose name (if name) or uid (else) matches. */
static struct passwd *pwscan(const char *name, uid_t uid)
{
	FILE *f = fopen(_PATH_PASSWD, "r");
	struct passwd *found = NULL;
	char *fld[7];
	long id;

	if (f == NULL)
		return NULL;
	while (found == NULL && fgets(pwline, sizeof(pwline), f) != NULL) {
		if (pwline[0] == '#' || split(pwline, fld, 7) != 7 || (id = id_field(fld[2])) < 0 ||
		    id_field(fld[3]) < 0)
			continue;
		if (name != NULL ? strcmp(fld[0], name) != 0 : (uid_t)id != uid)
			continue;
		pwent = (struct passwd){ fld[0], fld[1], (uid_t)id, (gid_t)id_field(fld[3]), fld[4],
		                         fld[5], fld[6] };
		found = &pwent;
	}
	fclose(f);
	return found;
}

struct passwd *getpwnam(const char *name) { return pwscan(name, 0); }
struct passwd *getpwuid(uid_t uid)        { return pwscan(NULL, uid); }

static FILE *grfile;

void endgrent(void)
{
	if (grfile != NULL)
		fclose(grfile);
	grfile = NULL;
}

int setgrent(void)
{
	endgrent();
	grfile = fopen(_PATH_GROUP, "r");
	return grfile != NULL;
}

/* getgrent: the next well-formed line of /etc/group (opened by the first call), or NULL. */
struct group *getgrent(void)
{
	char *fld[4];
	long id;
	int n;

	if (grfile == NULL && !setgrent())
		return NULL;
	while (fgets(grline, sizeof(grline), grfile) != NULL) {
		if (grline[0] == '#' || split(grline, fld, 4) != 4 || (id = id_field(fld[2])) < 0)
			continue;
		n = 0;
		for (char *m = fld[3]; *m != '\0' && n < DB_MAXMEM; ) {
			size_t len = strcspn(m, ",");
			grmem[n++] = m;
			m += len;
			if (*m == ',')
				*m++ = '\0';
		}
		grmem[n] = NULL;
		grent = (struct group){ fld[0], fld[1], (gid_t)id, grmem };
		return &grent;
	}
	return NULL;
}

/* The first group whose name (if name) or gid (else) matches. */
static struct group *grscan(const char *name, gid_t gid)
{
	struct group *gr;

	setgrent();
	while ((gr = getgrent()) != NULL)
		if (name != NULL ? strcmp(gr->gr_name, name) == 0 : gr->gr_gid == gid)
			break;
	endgrent();
	return gr;
}

struct group *getgrnam(const char *name) { return grscan(name, 0); }
struct group *getgrgid(gid_t gid)        { return grscan(NULL, gid); }
