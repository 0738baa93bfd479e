// SPDX-License-Identifier: MIT
/*
 * list-floor: the floor for a tool whose file set is known: read a list of
 * paths (one per line, from a file) and for each one open, read to the end
 * and close it (a directory: open, list every entry, close).  Prints
 *   files=N dirs=N bytes=N missing=N
 * Nothing is parsed or printed per file: what is left is the cost of the
 * system calls the tool cannot avoid.  With -a each file is opened relative
 * to a descriptor of its directory, kept while the next paths share it (the
 * way the tools' sysroot layer opens files): the cheapest way to open them.
 *
 * usage: list-floor [-a] LISTFILE
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * -a: a descriptor of path's directory, *name its last component.  A few are
 * kept, the least recently used replaced (a tool reads a GID's three files
 * from three directories in turn).
 */
#define NDIRS 8
static int dir_of(const char *path, const char **name)
{
	static struct {
		char path[4096];
		int fd;
		unsigned long used;
	} d[NDIRS];
	static unsigned long tick;
	const char *slash = strrchr(path, '/');
	size_t len, k = 0;

	if (!slash || slash == path)
		return -1;
	len = (size_t)(slash - path);
	*name = slash + 1;
	if (len >= sizeof(d[0].path))
		return -1;
	for (size_t i = 0; i < NDIRS; i++) {
		if (d[i].used && strlen(d[i].path) == len && memcmp(d[i].path, path, len) == 0) {
			d[i].used = ++tick;
			return d[i].fd;
		}
		if (d[i].used < d[k].used)
			k = i;
	}
	if (d[k].used && d[k].fd >= 0)
		close(d[k].fd);
	memcpy(d[k].path, path, len);
	d[k].path[len] = '\0';
	d[k].fd = open(d[k].path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	d[k].used = ++tick;
	return d[k].fd;
}

int main(int argc, char **argv)
{
	unsigned long files = 0, dirs = 0, bytes = 0, missing = 0;
	char line[4096], buf[8192];
	int at = argc == 3 && strcmp(argv[1], "-a") == 0;
	FILE *l;

	if (argc != 2 + at) {
		fprintf(stderr, "usage: list-floor [-a] LISTFILE\n");
		return 2;
	}
	l = fopen(argv[1 + at], "re");
	if (!l) {
		perror(argv[1 + at]);
		return 1;
	}
	while (fgets(line, sizeof(line), l)) {
		size_t n = strcspn(line, "\n");
		int fd;

		line[n] = '\0';
		if (n == 0)
			continue;
		if (at) {
			const char *name;
			int dfd = dir_of(line, &name);

			fd = dfd < 0 ? open(line, O_RDONLY | O_CLOEXEC) :
				       openat(dfd, name, O_RDONLY | O_CLOEXEC);
		} else {
			fd = open(line, O_RDONLY | O_CLOEXEC);
		}
		if (fd < 0) {
			missing++;
			continue;
		}
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EISDIR) {	/* a directory: list it (no fstat needed) */
			DIR *d = fdopendir(fd);

			if (!d) {
				close(fd);
				continue;
			}
			while (readdir(d))
				;
			closedir(d);
			dirs++;
			continue;
		}
		for (; r > 0; r = read(fd, buf, sizeof(buf)))
			bytes += (unsigned long)r;
		close(fd);
		files++;
	}
	fclose(l);
	printf("files=%lu dirs=%lu bytes=%lu missing=%lu\n", files, dirs, bytes, missing);
	return 0;
}
