// SPDX-License-Identifier: MIT
/*
 * A PCI function's config space: the bytes as the `config` file of a bridge
 * in a one-function sysroot, read by rd_pci_tree_read() and rd_pci_facts()
 * (the walk of the extended capabilities for ACS).  Invariants: ACS is read
 * only from a whole 4096-byte space, and found only where a header of ID
 * 0x000d sits inside it; an unread or absent ACS leaves the registers zero.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pci/pci.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FN "/sys/devices/pci0000:00/0000:00:01.0"

static char root[64], config[160];

static void remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_pcicfg: could not remove %s\n", root);
}

static void put(const char *rel, const char *val)
{
	char path[200];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(val, f);
	fclose(f);
}

/* A root port 0000:00:01.0 (8086:352a, a bridge on NUMA node 0), listed as sysfs lists it. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const dirs[] = {
		"/sys", "/sys/devices", "/sys/devices/pci0000:00", FN, "/sys/bus", "/sys/bus/pci",
		"/sys/bus/pci/devices",
	};
	char path[200];

	(void)argc;
	(void)argv;
	strcpy(root, "/tmp/fuzz-pcicfg-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(remove_root);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		mkdir(path, 0755);
	}
	put(FN "/vendor", "0x8086\n");
	put(FN "/device", "0x352a\n");
	put(FN "/class", "0x060400\n");
	put(FN "/numa_node", "0\n");
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:00:01.0", root);
	if (symlink("../../../devices/pci0000:00/0000:00:01.0", path))
		abort();
	snprintf(config, sizeof(config), "%s" FN "/config", root);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_sysroot sr;
	struct rd_pci_tree t;
	struct rd_warnings w = { 0 };
	const struct rd_pci_fn *f;
	FILE *cf;
	int i;

	cf = fopen(config, "w");
	if (!cf)
		abort();
	if (size && fwrite(data, 1, size, cf) != size)
		abort();
	fclose(cf);
	if (rd_sysroot_init(&sr, root) || rd_pci_tree_read(&sr, &t, &w))
		abort();
	i = rd_pci_find(&t, "0000:00:01.0");
	if (i < 0)
		__builtin_trap();
	rd_pci_facts(&t, (size_t)i, &w);
	f = &t.v[i];
	if (f->config_len > 4096 || f->config_len != (size < 4096 ? size : 4096))
		__builtin_trap();
	if (f->acs != RD_CAP_UNREAD && f->config_len < 4096)
		__builtin_trap();
	if (f->acs == RD_CAP_UNREAD && f->config_len == 4096)
		__builtin_trap();
	if (f->acs != RD_CAP_PRESENT && (f->acs_cap || f->acs_ctrl))
		__builtin_trap();
	if (f->acs == RD_CAP_PRESENT) {
		/* Some header at 0x100 .. 0xff8 names ACS and is followed by these registers. */
		bool found = false;

		for (size_t off = 0x100; off + 8 <= 4096 && !found; off += 4)
			found = data[off] == 0x0d && data[off + 1] == 0 &&
				(uint16_t)(data[off + 4] | data[off + 5] << 8) == f->acs_cap &&
				(uint16_t)(data[off + 6] | data[off + 7] << 8) == f->acs_ctrl;
		if (!found)
			__builtin_trap();
	}
	rd_pci_tree_free(&t);
	rd_warnings_free(&w);
	return 0;
}
