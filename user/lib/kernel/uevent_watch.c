// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Module loads and unloads without secmap.ko: the kernel's uevents for
 * /module/NAME (KOBJ_ADD once init has finished, KOBJ_REMOVE at unload),
 * and /sys/module/NAME/sections read as soon as the ADD arrives. Each is
 * turned into an event as secmap.ko would send it, so that a recorder or
 * a live resolver takes them the same way; what is lost against
 * secmap.ko is said in the events: its init sections are marked freed,
 * and a load is known from the end of its init, or, where perf's
 * module_load tracepoint may be read (load_trace.c), from its
 * init_module() call (where syscall tracepoints tell it) or from just
 * before its init ran.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>

#include "hashmap.h"
#include "internal.h"

/* The kernel's uevent buffer is 2 KiB of environment plus the header. */
#define UEVENT_BUF_SIZE 8192
/* Loads and unloads queue here while the caller is busy: a few hundred. */
#define UEVENT_RCVBUF (1 << 20)
#define UEVENT_NAME_MAX LIBSECMAP_UEVENT_NAME_MAX

struct known_module {
	char name[UEVENT_NAME_MAX];
	uint8_t build_id_len;
	uint8_t build_id[SECMAP_BUILD_ID_MAX];
};

struct secmap_uevent_watch {
	struct mnl_socket *nl;
	char *root;			/* sysfs's, "" for the live system */
	struct libsecmap_perf_clock clock;
	bool exact;			/* perf's clock was read */
	int load_times;			/* 1: module_load's records may be read; -errno: why not */
	struct libsecmap_load_trace trace;
	uint64_t missed;		/* ADDs whose module was gone before it was read */
	uint64_t last_gone;		/* the latest GONE event's time (perf's clock) */
	/* What each module loaded was, by name: a GONE event names its build-id. */
	struct known_module *known;
	size_t nr_known, cap_known;
	struct libsecmap_hashmap by_name;
	char buf[UEVENT_BUF_SIZE];
};

/*
 * One uevent datagram, "ACTION@DEVPATH\0KEY=VALUE\0...": 1 for a module's
 * add or remove (*@add, its name in @name), 0 for any other uevent,
 * -EPROTO for one that is not well formed.
 */
int libsecmap_uevent_parse(const char *buf, size_t len, bool *add, char name[UEVENT_NAME_MAX])
{
	const char *p = buf, *end = buf + len, *action = NULL, *devpath = NULL;
	const char *subsystem = NULL, *base;
	size_t n;

	if (!len || buf[len - 1] != '\0')
		return -EPROTO;
	/* The summary line, then the environment. */
	if (!memchr(p, '@', strlen(p)))
		return -EPROTO;
	for (p += strlen(p) + 1; p < end; p += strlen(p) + 1) {
		if (!strncmp(p, "ACTION=", 7))
			action = p + 7;
		else if (!strncmp(p, "DEVPATH=", 8))
			devpath = p + 8;
		else if (!strncmp(p, "SUBSYSTEM=", 10))
			subsystem = p + 10;
	}
	if (!action || !devpath || !subsystem)
		return -EPROTO;
	if (strcmp(subsystem, "module"))
		return 0;
	if (strcmp(action, "add") && strcmp(action, "remove"))
		return 0;	/* "change" and the like move nothing */
	if (strncmp(devpath, "/module/", 8))
		return -EPROTO;
	base = devpath + 8;
	n = strlen(base);
	/* A path component of a module's name: no "/", ".", ".." nor empty. */
	if (!n || n >= UEVENT_NAME_MAX || strchr(base, '/') || !strcmp(base, ".") ||
	    !strcmp(base, ".."))
		return -EPROTO;
	memcpy(name, base, n + 1);
	*add = !strcmp(action, "add");
	return 1;
}

static struct known_module *find_known(struct secmap_uevent_watch *w, const char *name,
				       uint64_t *hash)
{
	struct libsecmap_hashmap_slot *s;

	*hash = libsecmap_hashmap_hash(&w->by_name, name, strlen(name));
	for (s = libsecmap_hashmap_probe(&w->by_name, *hash); s;
	     s = libsecmap_hashmap_next(&w->by_name, *hash, s))
		if (!strcmp(w->known[s->item].name, name))
			return &w->known[s->item];
	return NULL;
}

/* Remember @mod's build-id under its name (a later load of it replaces it). */
static int remember(struct secmap_uevent_watch *w, const struct secmap_module *mod)
{
	struct known_module *k, *grown;
	uint64_t hash;

	if (strlen(mod->name) >= UEVENT_NAME_MAX)
		return 0;	/* no uevent can name it */
	k = find_known(w, mod->name, &hash);
	if (!k) {
		grown = libsecmap_grow(w->known, &w->cap_known, w->nr_known, sizeof(*grown), 64);
		if (!grown)
			return -ENOMEM;
		w->known = grown;
		if (libsecmap_hashmap_add(&w->by_name, hash, w->nr_known))
			return -ENOMEM;
		k = &w->known[w->nr_known++];
		memset(k, 0, sizeof(*k));
		strcpy(k->name, mod->name);
	}
	k->build_id_len = (uint8_t)mod->build_id_len;
	memcpy(k->build_id, mod->build_id, mod->build_id_len);
	return 0;
}

static void stamp(struct secmap_uevent_watch *w, uint64_t *local, uint64_t *mono)
{
	/* Without perf's clock: CLOCK_MONOTONIC for both, and not exact. */
	if (libsecmap_perf_clock_now(&w->clock, local, mono))
		*local = *mono;
}

SECMAP_EXPORT int secmap_uevent_watch_snapshot(struct secmap_uevent_watch *w,
					       struct secmap_snapshot **snapshot)
{
	struct secmap_snapshot *snap;
	uint64_t local, mono;
	size_t i;
	int err;

	if (!w || !snapshot)
		return libsecmap_err(-EINVAL);
	*snapshot = NULL;
	stamp(w, &local, &mono);
	err = secmap_snapshot_from_sysfs(w->root, &snap);
	if (err)
		return err;
	/* sysfs's snapshot has its live modules' init part flagged freed already. */
	for (i = 0; i < snap->nr_modules; i++) {
		err = remember(w, &snap->modules[i]);
		if (err) {
			secmap_snapshot_free(snap);
			return libsecmap_err(err);
		}
	}
	snap->time_local_ns = local;
	snap->time_mono_ns = mono;
	*snapshot = snap;
	return 0;
}

SECMAP_EXPORT int secmap_uevent_watch_open(const char *root, struct secmap_uevent_watch **watch)
{
	struct secmap_uevent_watch *w;
	int err, size = UEVENT_RCVBUF;
	uint64_t local, mono;

	if (!watch)
		return libsecmap_err(-EINVAL);
	*watch = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return libsecmap_err(-ENOMEM);
	w->clock.ring.fd = -1;
	libsecmap_hashmap_init(&w->by_name);
	w->root = strdup(root ? root : "");
	if (!w->root) {
		err = -ENOMEM;
		goto fail;
	}
	w->nl = mnl_socket_open2(NETLINK_KOBJECT_UEVENT, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!w->nl)
		goto fail_errno;
	/* Group 1: the kernel's own uevents (udev re-sends on others). */
	if (mnl_socket_bind(w->nl, 1, MNL_SOCKET_AUTOPID) < 0)
		goto fail_errno;
	/* Privileged callers may exceed rmem_max; others get what it allows. */
	if (mnl_socket_setsockopt(w->nl, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(mnl_socket_get_fd(w->nl), SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	/* Exact times need perf's clock; without it, estimates. */
	if (!libsecmap_perf_clock_open(&w->clock))
		w->exact = !libsecmap_perf_clock_now(&w->clock, &local, &mono);
	/* A test's sysfs under @root has no tracepoint of its own to read. */
	w->load_times = !w->exact ? -ENODEV : *w->root ? -ENOENT : libsecmap_load_trace_open(&w->trace);
	if (!w->load_times)
		w->load_times = 1;
	*watch = w;
	return 0;
fail_errno:
	err = -errno;
fail:
	secmap_uevent_watch_close(w);
	return libsecmap_err(err);
}

SECMAP_EXPORT int secmap_uevent_watch_fd(const struct secmap_uevent_watch *w)
{
	return w ? mnl_socket_get_fd(w->nl) : libsecmap_err(-EINVAL);
}

SECMAP_EXPORT int secmap_uevent_watch_exact_times(const struct secmap_uevent_watch *w)
{
	return w && w->exact;
}

SECMAP_EXPORT int secmap_uevent_watch_load_times(const struct secmap_uevent_watch *w)
{
	return w ? w->load_times : -EINVAL;
}

SECMAP_EXPORT uint64_t secmap_uevent_watch_missed(const struct secmap_uevent_watch *w)
{
	return w ? w->missed : 0;
}

/*
 * A load the tracepoints saw begin: its NEW event @ev moves back to then.
 * From its syscall on (module_load's time without one), its memory could
 * hold nothing else, unless a module unloaded meanwhile left it free: so
 * not before the last GONE taken, which came before this ADD. Its init
 * part stays unknown: sysfs gives no time its memory was freed before
 * another load took it (the ADD comes first, but is taken later).
 */
static void stamp_load(struct secmap_uevent_watch *w, struct secmap_event *ev)
{
	uint64_t begun, loaded;

	libsecmap_module_mark_init_freed(&ev->module);
	if (w->load_times != 1 ||
	    libsecmap_load_trace_take(&w->trace, ev->module.name, ev->time_local_ns, &begun,
				      &loaded))
		return;
	if (w->last_gone > begun)
		begun = w->last_gone;
	if (begun >= ev->time_local_ns)
		return;
	/* CLOCK_MONOTONIC went as far since then as perf's clock did. */
	ev->time_mono_ns -= ev->time_mono_ns < ev->time_local_ns - begun ?
			    ev->time_mono_ns : ev->time_local_ns - begun;
	ev->time_local_ns = begun;
}

/* The event of a module's add or remove; -ENOENT: added, and gone already. */
static int module_event(struct secmap_uevent_watch *w, bool add, const char *name, uint64_t seq,
			struct secmap_event **event)
{
	struct secmap_event *ev;
	struct known_module *k;
	uint64_t hash;
	int err = 0;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->source = SECMAP_SOURCE_SYSFS;
	ev->seq = seq;
	stamp(w, &ev->time_local_ns, &ev->time_mono_ns);
	if (add) {
		ev->type = SECMAP_CMD_MODULE_NEW_NTF;
		err = libsecmap_sysfs_read_module(w->root, name, &ev->module, &ev->pool);
		if (!err)
			err = remember(w, &ev->module);
		if (!err)
			stamp_load(w, ev);
	} else {
		ev->type = SECMAP_CMD_MODULE_GONE_NTF;
		w->last_gone = ev->time_local_ns;
		ev->module.name = libsecmap_pool_strndup(&ev->pool, name, strlen(name));
		if (!ev->module.name)
			err = -ENOMEM;
		k = find_known(w, name, &hash);
		if (k) {
			ev->module.build_id_len = k->build_id_len;
			memcpy(ev->module.build_id, k->build_id, k->build_id_len);
		}
	}
	if (err) {
		secmap_event_free(ev);
		return err;
	}
	*event = ev;
	return 0;
}

/* A receive buffer overrun: what sysfs shows now replaces what was missed. */
static int resync_event(struct secmap_uevent_watch *w, struct secmap_event **event)
{
	struct secmap_event *ev = calloc(1, sizeof(*ev));
	int err;

	if (!ev)
		return -ENOMEM;
	err = secmap_uevent_watch_snapshot(w, &ev->snapshot);
	if (err) {
		free(ev);
		return err;
	}
	ev->type = SECMAP_EVENT_RESYNC;
	ev->source = SECMAP_SOURCE_SYSFS;
	ev->time_local_ns = ev->snapshot->time_local_ns;
	ev->time_mono_ns = ev->snapshot->time_mono_ns;
	ev->lost = 1;	/* at least one; uevents do not count them */
	*event = ev;
	return 0;
}

/* SEQNUM=N of a uevent, 0 if it has none. */
static uint64_t uevent_seqnum(const char *buf, size_t len)
{
	const char *p, *end = buf + len;

	for (p = buf; p < end; p += strlen(p) + 1)
		if (!strncmp(p, "SEQNUM=", 7))
			return strtoull(p + 7, NULL, 10);
	return 0;
}

int libsecmap_uevent_watch_take(struct secmap_uevent_watch *w, const char *buf, size_t len,
				struct secmap_event **event)
{
	char name[UEVENT_NAME_MAX];
	bool add;
	int ret;

	ret = libsecmap_uevent_parse(buf, len, &add, name);
	if (ret <= 0)
		return -EAGAIN;	/* another device's, or malformed: not ours to judge */
	ret = module_event(w, add, name, uevent_seqnum(buf, len), event);
	if (ret == -ENOENT) {
		w->missed++;	/* loaded and gone before it could be read */
		return -EAGAIN;
	}
	return ret;
}

SECMAP_EXPORT int secmap_uevent_watch_next(struct secmap_uevent_watch *w,
					   struct secmap_event **event)
{
	struct sockaddr_nl from;
	struct iovec iov;
	struct msghdr msg;
	ssize_t n;
	int ret;

	if (!w || !event)
		return libsecmap_err(-EINVAL);
	*event = NULL;
	for (;;) {
		iov = (struct iovec){ .iov_base = w->buf, .iov_len = sizeof(w->buf) };
		msg = (struct msghdr){ .msg_name = &from, .msg_namelen = sizeof(from),
				       .msg_iov = &iov, .msg_iovlen = 1 };
		n = recvmsg(mnl_socket_get_fd(w->nl), &msg, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS)
			return libsecmap_err(resync_event(w, event));
		if (n < 0)
			return libsecmap_err(errno == EWOULDBLOCK ? -EAGAIN : -errno);
		/* Only the kernel's (port 0), whole: anything else is not a uevent. */
		if (msg.msg_namelen != sizeof(from) || from.nl_pid != 0 ||
		    (msg.msg_flags & MSG_TRUNC))
			continue;
		ret = libsecmap_uevent_watch_take(w, w->buf, (size_t)n, event);
		if (ret != -EAGAIN)
			return ret ? libsecmap_err(ret) : 0;
	}
}

SECMAP_EXPORT void secmap_uevent_watch_close(struct secmap_uevent_watch *w)
{
	if (!w)
		return;
	if (w->nl)
		mnl_socket_close(w->nl);
	libsecmap_perf_clock_close(&w->clock);
	libsecmap_load_trace_close(&w->trace);
	libsecmap_hashmap_free(&w->by_name);
	free(w->known);
	free(w->root);
	free(w);
}
