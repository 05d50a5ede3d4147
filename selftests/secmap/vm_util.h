/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the in-VM selftests: module loading, .ko reading, the family's ids. */
#ifndef SECMAP_VM_UTIL_H
#define SECMAP_VM_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <json-c/json.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "secmap.h"
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* What a CTRL_CMD_GETFAMILY reply says of the secmap family; 0: not said. */
struct family_ids {
	uint16_t family;
	uint32_t mcgrp_events;
};

/* One CTRL_ATTR_MCAST_GRP_* nest: remember the id if it is "events". */
static inline void family_ids_mcgrp(const struct nlattr *grp, struct family_ids *ids)
{
	const struct nlattr *attr;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(attr, grp) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GRP_NAME &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			name = mnl_attr_get_str(attr);
		if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GRP_ID &&
		    mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
			id = mnl_attr_get_u32(attr);
	}
	if (name && !strcmp(name, SECMAP_MCGRP_EVENTS))
		ids->mcgrp_events = id;
}

static inline int family_ids_attr_cb(const struct nlattr *attr, void *data)
{
	struct family_ids *ids = data;
	const struct nlattr *grp;

	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
		ids->family = mnl_attr_get_u16(attr);
	if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GROUPS)
		mnl_attr_for_each_nested(grp, attr)
			family_ids_mcgrp(grp, ids);
	return MNL_CB_OK;
}

/* mnl_cb_run() callback for the reply; @data is a struct family_ids. */
static inline int family_ids_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_ids_attr_cb, data);
	return MNL_CB_OK;
}

/* Where the VM's /init puts things; see vm-init.sh. */
#define TEST_MODULE_DIR		"/lib/modules/secmap"
#define EARLY_MODULE_DIR	"/lib/modules/early"
#define LATE_MODULE_DIR		"/lib/modules/late"
#define REAL_MODULE_LIST	"/etc/secmap/real-modules"
#define SECMAP_CLI		"/bin/secmap"

static inline int load_module_params(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static inline int load_module(const char *path)
{
	return load_module_params(path, "");
}

static inline int unload_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/*
 * Calls @fn for each section of the ELF file at @path until it returns
 * true. Returns 1 if it did, 0 if not, -errno or -EINVAL on a bad file.
 */
static inline int for_each_ko_section(const char *path,
				      bool (*fn)(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
						 const char *name, void *arg),
				      void *arg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret = 0, fd;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		ret = -EINVAL;
		goto out;
	}
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && fn(elf, scn, &shdr, name, arg))
			ret = 1;
	}
out:
	elf_end(elf);
	close(fd);
	return ret;
}

static inline bool match_alloc_section(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
				       const char *name, void *arg)
{
	(void)elf;
	(void)scn;
	return !strcmp(name, arg) && (shdr->sh_flags & SHF_ALLOC) && shdr->sh_size;
}

/* Does the .ko have an allocated, non-empty section @name? */
static inline bool ko_has_section(const char *path, const char *name)
{
	return for_each_ko_section(path, match_alloc_section, (void *)name) == 1;
}

struct build_id {
	uint8_t bytes[64];
	size_t len;
};

static inline bool read_build_id_note(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
				      const char *name, void *arg)
{
	struct build_id *id = arg;
	size_t off = 0, name_off, desc_off;
	Elf_Data *data;
	GElf_Nhdr nhdr;

	(void)elf;
	if (shdr->sh_type != SHT_NOTE || strcmp(name, ".note.gnu.build-id"))
		return false;
	data = elf_getdata(scn, NULL);
	while (data && (off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off))) {
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) &&
		    nhdr.n_descsz <= sizeof(id->bytes)) {
			memcpy(id->bytes, (char *)data->d_buf + desc_off, nhdr.n_descsz);
			id->len = nhdr.n_descsz;
			return true;
		}
	}
	return false;
}

/* The GNU build-id of the .ko at @path; 0 if found, else negative. */
static inline int ko_build_id(const char *path, struct build_id *id)
{
	int ret = for_each_ko_section(path, read_build_id_note, id);

	return ret == 1 ? 0 : ret ? ret : -ENOENT;
}

/*
 * Run shell command @cmd and parse its standard output as JSON. Returns the
 * object (caller puts it) or NULL; *@status gets the exit status.
 */
static inline struct json_object *run_json(const char *cmd, int *status)
{
	struct json_object *root = NULL;
	char chunk[4096], *text = NULL;
	size_t len = 0, got;
	FILE *out, *buf;
	int rc;

	*status = -1;
	out = popen(cmd, "r");
	if (!out)
		return NULL;
	buf = open_memstream(&text, &len);
	while (buf && (got = fread(chunk, 1, sizeof(chunk), out)) > 0)
		fwrite(chunk, 1, got, buf);
	if (buf)
		fclose(buf);
	rc = pclose(out);
	*status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	if (text)
		root = json_tokener_parse(text);
	free(text);
	return root;
}

/* The member @key of JSON object @obj, or NULL. */
static inline struct json_object *jget(struct json_object *obj, const char *key)
{
	struct json_object *val = NULL;

	return obj && json_object_object_get_ex(obj, key, &val) ? val : NULL;
}

#ifdef __KSELFTEST_HARNESS_H
/* For test bodies: a client, or NULL after a failed expectation. */
static inline struct secmap_client *open_client(struct __test_metadata *_metadata)
{
	struct secmap_client *client = NULL;
	int ret = secmap_client_open(&client);

	EXPECT_EQ(0, ret) TH_LOG("secmap_client_open: %s", secmap_strerror(ret));
	return client;
}

/* A netlink dump, or NULL after a failed expectation. */
static inline struct secmap_snapshot *dump(struct __test_metadata *_metadata)
{
	struct secmap_client *client = open_client(_metadata);
	struct secmap_snapshot *snap = NULL;
	int ret;

	if (!client)
		return NULL;
	ret = secmap_client_dump(client, &snap);
	EXPECT_EQ(0, ret) TH_LOG("secmap_client_dump: %s", secmap_strerror(ret));
	secmap_client_close(client);
	return snap;
}
#endif

#endif /* SECMAP_VM_UTIL_H */
