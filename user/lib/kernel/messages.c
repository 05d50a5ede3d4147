// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libsecmap's parser of the secmap family's messages (modules, events,
 * info), shared by replies and events: every length, nesting and string
 * is checked before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/secmap.h>

#include "internal.h"


/*
 * Module messages are walked with the inline helpers below rather than
 * libmnl's accessors, which are calls into the shared library: five to
 * seven per attribute, and a 1000-module dump has over 100000 of them.
 * Same rules as mnl_attr_ok(): an attribute is used only if its header
 * fits in what is left and its length covers the header and fits too.
 * The checks after them are mnl_attr_validate()'s, made exact.
 */
static inline const struct nlattr *attr_first(const void *payload)
{
	return payload;
}

static inline bool attr_fits(const struct nlattr *attr, const void *tail)
{
	ptrdiff_t left = (const char *)tail - (const char *)attr;

	return left >= (ptrdiff_t)sizeof(*attr) && attr->nla_len >= sizeof(*attr) &&
	       attr->nla_len <= left;
}

static inline const struct nlattr *attr_next(const struct nlattr *attr)
{
	return (const struct nlattr *)((const char *)attr + MNL_ALIGN(attr->nla_len));
}

static inline uint16_t attr_type(const struct nlattr *attr)
{
	return attr->nla_type & NLA_TYPE_MASK;
}

static inline uint16_t attr_len(const struct nlattr *attr)
{
	return attr->nla_len - MNL_ATTR_HDRLEN;
}

static inline const void *attr_data(const struct nlattr *attr)
{
	return (const char *)attr + MNL_ATTR_HDRLEN;
}

static inline const void *nest_tail(const struct nlattr *nest)
{
	return (const char *)attr_data(nest) + attr_len(nest);
}

/* Every attribute from @start up to @tail; @attr is where the walk stopped. */
#define attr_for_each(attr, start, tail) \
	for ((attr) = attr_first(start); attr_fits((attr), (tail)); (attr) = attr_next(attr))
#define attr_for_each_nested(attr, nest) attr_for_each(attr, attr_data(nest), nest_tail(nest))
#define attr_for_each_in_msg(attr, nlh) \
	attr_for_each(attr, (const char *)mnl_nlmsg_get_payload(nlh) + \
		      MNL_ALIGN(sizeof(struct genlmsghdr)), mnl_nlmsg_get_payload_tail(nlh))


/* A non-empty NUL-terminated string, seen once: into *@name, its length into *@len. */
static int attr_name(const struct nlattr *attr, const char **name, size_t *len)
{
	const char *str = attr_data(attr);
	uint16_t size = attr_len(attr);

	if (*name || !size || str[size - 1] || !str[0])
		return -EPROTO;
	*name = str;
	*len = strlen(str);
	return 0;
}

/* A nest: empty, or room for at least one attribute header. */
static bool attr_nest_ok(const struct nlattr *attr)
{
	uint16_t size = attr_len(attr);

	return !size || size >= MNL_ATTR_HDRLEN;
}

/* A u32 attribute of exactly four bytes, seen once. */
static int attr_u32(const struct nlattr *attr, bool *seen, uint32_t *val)
{
	if (*seen || attr_len(attr) != sizeof(uint32_t))
		return -EPROTO;
	memcpy(val, attr_data(attr), sizeof(*val));
	*seen = true;
	return 0;
}

/* A u64 attribute of exactly eight bytes (any alignment), seen once. */
static int attr_u64(const struct nlattr *attr, bool *seen, uint64_t *val)
{
	if (*seen || attr_len(attr) != sizeof(uint64_t))
		return -EPROTO;
	memcpy(val, attr_data(attr), sizeof(*val));
	*seen = true;
	return 0;
}

/*
 * The walks silently stop at an attribute that overruns its container;
 * whatever is left past @attr beyond alignment slack means the message
 * was cut or corrupted.
 */
static bool has_garbage(const void *attr, const void *tail)
{
	return (const char *)tail - (const char *)attr >= (ptrdiff_t)sizeof(struct nlattr);
}

static int parse_section(const struct nlattr *nest, struct secmap_module *mod,
			 struct libsecmap_pool *pool)
{
	bool have_addr = false, have_flags = false, have_region = false;
	const struct nlattr *attr;
	const char *name = NULL, *copy;
	uint32_t flags = 0, region = 0;
	uint64_t addr = 0;
	size_t len = 0;

	attr_for_each_nested(attr, nest) {
		switch (attr_type(attr)) {
		case SECMAP_A_SECTION_NAME:
			if (attr_name(attr, &name, &len))
				return -EPROTO;
			break;
		case SECMAP_A_SECTION_ADDR:
			if (attr_u64(attr, &have_addr, &addr))
				return -EPROTO;
			break;
		case SECMAP_A_SECTION_FLAGS:
			if (attr_u32(attr, &have_flags, &flags))
				return -EPROTO;
			break;
		case SECMAP_A_SECTION_REGION:
			/* secmap_section_region() returns an int. */
			if (attr_u32(attr, &have_region, &region) || region > INT_MAX)
				return -EPROTO;
			break;
		default:
			/* PAD, and whatever newer kernels add. */
			break;
		}
	}
	if (has_garbage(attr, nest_tail(nest)) || !name || !have_addr)
		return -EPROTO;
	copy = libsecmap_pool_intern(pool, name, len);
	if (!copy)
		return -ENOMEM;
	return libsecmap_module_add_section(mod, copy, addr, flags,
					    have_region ? (int)region : -1);
}

static int parse_region(const struct nlattr *nest, struct secmap_module *mod)
{
	bool have_type = false, have_base = false, have_size = false;
	struct secmap_region region = { 0 };
	const struct nlattr *attr;

	attr_for_each_nested(attr, nest) {
		switch (attr_type(attr)) {
		case SECMAP_A_REGION_TYPE:
			if (attr_u32(attr, &have_type, &region.type))
				return -EPROTO;
			break;
		case SECMAP_A_REGION_BASE:
			if (attr_u64(attr, &have_base, &region.base))
				return -EPROTO;
			break;
		case SECMAP_A_REGION_SIZE:
			if (attr_u64(attr, &have_size, &region.size))
				return -EPROTO;
			break;
		default:
			break;
		}
	}
	if (has_garbage(attr, nest_tail(nest)) || !have_type || !have_base || !have_size)
		return -EPROTO;
	return libsecmap_module_add_region(mod, &region);
}

static int parse_event_nest(const struct nlattr *nest, struct secmap_event *ev)
{
	bool have_seq = false, have_local = false, have_mono = false;
	const struct nlattr *attr;

	attr_for_each_nested(attr, nest) {
		switch (attr_type(attr)) {
		case SECMAP_A_EVENT_SEQ:
			if (attr_u64(attr, &have_seq, &ev->seq))
				return -EPROTO;
			break;
		case SECMAP_A_EVENT_TIME_LOCAL_NS:
			if (attr_u64(attr, &have_local, &ev->time_local_ns))
				return -EPROTO;
			break;
		case SECMAP_A_EVENT_TIME_MONO_NS:
			if (attr_u64(attr, &have_mono, &ev->time_mono_ns))
				return -EPROTO;
			break;
		default:
			break;
		}
	}
	/* Sequence numbers start at 1: 0 would read as "nothing seen yet". */
	if (has_garbage(attr, nest_tail(nest)) || !have_seq || !ev->seq)
		return -EPROTO;
	return 0;
}

/*
 * The generic netlink header of a secmap message, or NULL if there is
 * none. libmnl walks attributes up to the *aligned* end of the message, so
 * an unaligned length would let it read past it. The kernel pads every
 * attribute, hence never sends one.
 */
static const struct genlmsghdr *genl_header(const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN || nlh->nlmsg_len % MNL_ALIGNTO ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return NULL;
	return mnl_nlmsg_get_payload(nlh);
}

/* Size @mod's arrays for the sections and regions @nlh holds, in one go. */
static int reserve_module(const struct nlmsghdr *nlh, struct secmap_module *mod)
{
	size_t nr_sections = 0, nr_regions = 0;
	const struct nlattr *attr;

	attr_for_each_in_msg(attr, nlh) {
		if (attr_type(attr) == SECMAP_A_MODULE_SECTION)
			nr_sections++;
		else if (attr_type(attr) == SECMAP_A_MODULE_SECTION_TABLE)
			nr_sections += attr_len(attr) / sizeof(struct secmap_section_desc);
		else if (attr_type(attr) == SECMAP_A_MODULE_REGION)
			nr_regions++;
	}
	return libsecmap_module_reserve(mod, nr_sections, nr_regions);
}

/*
 * SECMAP_A_MODULE_SECTION_TABLE, its names in @names: every entry as a
 * SECMAP_A_MODULE_SECTION nest would be read, each name a non-empty string
 * that ends inside @names.
 */
static int parse_section_table(const struct nlattr *table, const struct nlattr *names,
			       struct secmap_module *mod, struct libsecmap_pool *pool)
{
	const char *desc_at = attr_data(table), *name_at, *name, *end;
	size_t i, n = attr_len(table) / sizeof(struct secmap_section_desc);
	struct secmap_section_desc desc;
	const char *copy;
	int err;

	if (attr_len(table) % sizeof(desc) || !names)
		return -EPROTO;
	name_at = attr_data(names);
	for (i = 0; i < n; i++) {
		/* The attribute is only 4-byte aligned where nothing pads it. */
		memcpy(&desc, desc_at + i * sizeof(desc), sizeof(desc));
		if (desc.name_off >= attr_len(names) ||
		    (desc.region != SECMAP_SECTION_NO_REGION && desc.region > INT_MAX))
			return -EPROTO;
		name = name_at + desc.name_off;
		end = memchr(name, '\0', attr_len(names) - desc.name_off);
		if (!end || end == name)
			return -EPROTO;
		copy = libsecmap_pool_intern(pool, name, (size_t)(end - name));
		if (!copy)
			return -ENOMEM;
		err = libsecmap_module_add_section(mod, copy, desc.addr, desc.flags,
						   desc.region == SECMAP_SECTION_NO_REGION ?
						   -1 : (int)desc.region);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Fill @mod from the top-level attributes of @nlh, its strings from
 * @pool; with @ev, also the event nest, which is then required. On
 * failure the caller releases @mod.
 */
static int parse_module_attrs(const struct nlmsghdr *nlh, struct secmap_module *mod,
			      struct libsecmap_pool *pool, struct secmap_event *ev)
{
	bool have_state = false, have_taint = false, have_event = false;
	const struct nlattr *attr, *table = NULL, *names = NULL;
	const char *name = NULL;
	size_t len = 0;
	int err;

	err = reserve_module(nlh, mod);
	if (err)
		return err;
	attr_for_each_in_msg(attr, nlh) {
		switch (attr_type(attr)) {
		case SECMAP_A_MODULE_NAME:
			if (attr_name(attr, &name, &len))
				return -EPROTO;
			break;
		case SECMAP_A_MODULE_SECTION:
			if (!attr_nest_ok(attr))
				return -EPROTO;
			err = parse_section(attr, mod, pool);
			if (err)
				return err;
			break;
		case SECMAP_A_MODULE_STATE:
			if (attr_u32(attr, &have_state, &mod->state))
				return -EPROTO;
			break;
		case SECMAP_A_MODULE_TAINT:
			if (attr_u64(attr, &have_taint, &mod->taint))
				return -EPROTO;
			break;
		case SECMAP_A_MODULE_BUILD_ID:
			if (mod->build_id_len || attr_len(attr) == 0 ||
			    attr_len(attr) > SECMAP_BUILD_ID_MAX)
				return -EPROTO;
			mod->build_id_len = attr_len(attr);
			memcpy(mod->build_id, attr_data(attr), mod->build_id_len);
			break;
		case SECMAP_A_MODULE_REGION:
			if (!attr_nest_ok(attr))
				return -EPROTO;
			err = parse_region(attr, mod);
			if (err)
				return err;
			break;
		case SECMAP_A_MODULE_SECTION_TABLE:
			if (table)
				return -EPROTO;
			table = attr;
			break;
		case SECMAP_A_MODULE_SECTION_NAMES:
			if (names)
				return -EPROTO;
			names = attr;
			break;
		case SECMAP_A_MODULE_EVENT:
			/* Only notifications carry it; elsewhere it means nothing to us. */
			if (!ev)
				break;
			if (have_event || !attr_nest_ok(attr) || parse_event_nest(attr, ev))
				return -EPROTO;
			have_event = true;
			break;
		default:
			/* Attributes from a newer kernel: skip, as the ABI only appends. */
			break;
		}
	}
	if (has_garbage(attr, mnl_nlmsg_get_payload_tail(nlh)) || !name || (ev && !have_event) ||
	    (names && !table))
		return -EPROTO;
	if (table) {
		err = parse_section_table(table, names, mod, pool);
		if (err)
			return err;
	}
	mod->name = libsecmap_pool_strndup(pool, name, len);
	return mod->name ? 0 : -ENOMEM;
}

int libsecmap_parse_module_msg(const struct nlmsghdr *nlh, struct secmap_snapshot *snap)
{
	const struct genlmsghdr *genl = genl_header(nlh);
	struct secmap_module mod = { 0 };
	int err;

	if (!genl || genl->cmd != SECMAP_CMD_MODULE_GET)
		return libsecmap_err(-EPROTO);
	err = parse_module_attrs(nlh, &mod, &snap->pool, NULL);
	if (!err)
		err = libsecmap_snapshot_add_module(snap, &mod);
	libsecmap_module_release(&mod);
	return err ? libsecmap_err(err) : 0;
}

int libsecmap_parse_event_msg(const struct nlmsghdr *nlh, struct libsecmap_event_state *st,
			      struct secmap_event **event)
{
	const struct genlmsghdr *genl = genl_header(nlh);
	struct secmap_event *ev;
	int err;

	*event = NULL;
	if (!genl)
		return libsecmap_err(-EPROTO);
	switch (genl->cmd) {
	case SECMAP_CMD_MODULE_NEW_NTF:
	case SECMAP_CMD_MODULE_LIVE_NTF:
	case SECMAP_CMD_MODULE_GONE_NTF:
		break;
	default:
		/* A notification a newer kernel added, or not one at all. */
		return 0;
	}
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return libsecmap_err(-ENOMEM);
	ev->type = genl->cmd;
	err = parse_module_attrs(nlh, &ev->module, &ev->pool, ev);
	if (err) {
		secmap_event_free(ev);
		return libsecmap_err(err);
	}
	/* Sent before a snapshot the caller already has: nothing new. */
	if (st->covered_seq) {
		if (ev->seq <= st->covered_seq) {
			secmap_event_free(ev);
			return 0;
		}
		st->covered_seq = 0;
	}
	/* A number going backwards: the kernel module was reloaded; no gap. */
	if (st->started && ev->seq > st->last_seq)
		ev->lost = ev->seq - st->last_seq - 1;
	/* An overrun lost at least one, even if we cannot tell how many. */
	if (st->overrun && !ev->lost)
		ev->lost = 1;
	st->last_seq = ev->seq;
	st->started = true;
	st->overrun = false;
	*event = ev;
	return 0;
}

int libsecmap_parse_info_msg(const struct nlmsghdr *nlh, struct secmap_info *info)
{
	bool have_version = false, have_gen = false, have_hook = false, have_seq = false;
	bool have_local = false, have_mono = false;
	const struct genlmsghdr *genl = genl_header(nlh);
	struct secmap_info out = { .sz = sizeof(out) };
	const struct nlattr *attr;
	const char *release = NULL;

	if (!genl || genl->cmd != SECMAP_CMD_INFO_GET)
		return libsecmap_err(-EPROTO);
	mnl_attr_for_each(attr, nlh, sizeof(*genl)) {
		switch (mnl_attr_get_type(attr)) {
		case SECMAP_A_INFO_VERSION:
			if (attr_u32(attr, &have_version, &out.version))
				return libsecmap_err(-EPROTO);
			break;
		case SECMAP_A_INFO_GENERATION:
			if (attr_u64(attr, &have_gen, &out.generation))
				return libsecmap_err(-EPROTO);
			break;
		case SECMAP_A_INFO_RELEASE:
			if (release || mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
			    strlen(mnl_attr_get_str(attr)) >= sizeof(out.release))
				return libsecmap_err(-EPROTO);
			release = mnl_attr_get_str(attr);
			break;
		case SECMAP_A_INFO_HOOK:
			if (attr_u32(attr, &have_hook, &out.hook))
				return libsecmap_err(-EPROTO);
			break;
		case SECMAP_A_INFO_EVENT_SEQ:
			if (attr_u64(attr, &have_seq, &out.event_seq))
				return libsecmap_err(-EPROTO);
			break;
		/* Optional: older secmap modules do not send the clocks. */
		case SECMAP_A_INFO_TIME_LOCAL_NS:
			if (attr_u64(attr, &have_local, &out.time_local_ns))
				return libsecmap_err(-EPROTO);
			break;
		case SECMAP_A_INFO_TIME_MONO_NS:
			if (attr_u64(attr, &have_mono, &out.time_mono_ns))
				return libsecmap_err(-EPROTO);
			break;
		default:
			break;
		}
	}
	if (has_garbage(attr, mnl_nlmsg_get_payload_tail(nlh)) || !have_version || !have_gen ||
	    !release || !have_hook || !have_seq)
		return libsecmap_err(-EPROTO);
	strcpy(out.release, release);
	libsecmap_struct_out(info, 0, &out, sizeof(out));
	return 0;
}
