// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the .ko search (ko_find.c): the input is the
 * modules.dep of a fake release tree that holds a few real files, searched
 * one module at a time and through the index, for fixed names and for the
 * first line's name. A path handed back must be a terminated string inside
 * the tree (modules.dep entries must not lead out of it).
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secmap.h"

static char root[64], tree[128];
static volatile size_t sink;

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0)
		close(fd);
}

static void setup(void)
{
	char path[256];

	strcpy(root, "/tmp/secmap-dep-fuzz.XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(tree, sizeof(tree), "%s/r", root);
	mkdir(tree, 0755);
	snprintf(path, sizeof(path), "%s/kernel", tree);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/kernel/a.ko", tree);
	touch(path);
	snprintf(path, sizeof(path), "%s/kernel/b-c.ko.xz", tree);
	touch(path);
	/* Outside the tree: a path to it must never come back. */
	snprintf(path, sizeof(path), "%s/outside.ko", root);
	touch(path);
}

static void check(const char *path)
{
	if (!path)
		return;
	if (strncmp(path, tree, strlen(tree)) || strstr(path, "/../"))
		abort();	/* led out of the release's tree */
	sink += strlen(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	SECMAP_OPTS(secmap_ko_search, s, .release = "r", .modules_root = root, .debug_root = "",
				      .buildid_cache = "");
	const char *names[] = { "a", "b_c", "b-c", "outside", NULL, NULL };
	struct secmap_ko_index *index = NULL;
	char dep[256], first[64];
	size_t i, n;
	int fd;

	if (!root[0])
		setup();
	snprintf(dep, sizeof(dep), "%s/modules.dep", tree);
	fd = open(dep, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	/* The first entry's module name, as a caller would ask for it. */
	for (n = 0; n < size && n < sizeof(first) - 1 && data[n] != ':' && data[n] != '\n' &&
		    data[n]; n++)
		first[n] = data[n];
	first[n] = '\0';
	if (n)
		names[4] = strrchr(first, '/') ? strrchr(first, '/') + 1 : first;

	for (i = 0; names[i]; i++) {
		char *path = NULL;

		if (!secmap_ko_find(&s, names[i], NULL, 0, &path))
			check(path);
		free(path);
	}
	if (!secmap_ko_index_new(&s, &index)) {
		for (i = 0; names[i]; i++) {
			char *path = NULL;

			if (!secmap_ko_index_find(index, names[i], NULL, 0, &path))
				check(path);
			free(path);
		}
		secmap_ko_index_free(index);
	}
	return 0;
}
