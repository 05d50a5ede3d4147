// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Notice secmap.ko being unloaded and loaded again, from the generic
 * netlink controller's "notify" group: a subscription belongs to one
 * registration of the family, so a long-running listener has to start
 * over when a new one appears.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "internal.h"

/* Controller messages list a family's ops and groups: a few KiB at most. */
#define WATCH_BUF_SIZE 32768

struct secmap_family_watch {
	struct mnl_socket *nl;
	char buf[WATCH_BUF_SIZE];
	size_t len, off;	/* the datagram being handed out */
};

struct notify_group {
	uint32_t id;
	bool found;
};

static int group_cb(const struct nlmsghdr *nlh, void *data)
{
	struct notify_group *g = data;
	const struct nlattr *attr, *grp, *a;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return MNL_CB_ERROR;
	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != CTRL_ATTR_MCAST_GROUPS ||
		    mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			continue;
		mnl_attr_for_each_nested(grp, attr) {
			const char *name = NULL;
			uint32_t id = 0;

			if (mnl_attr_validate(grp, MNL_TYPE_NESTED) < 0)
				return MNL_CB_ERROR;
			mnl_attr_for_each_nested(a, grp) {
				if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
				    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
					name = mnl_attr_get_str(a);
				else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
					 mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
					id = mnl_attr_get_u32(a);
			}
			if (name && id && !strcmp(name, "notify")) {
				g->id = id;
				g->found = true;
			}
		}
	}
	return MNL_CB_OK;
}

/* The id of nlctrl's "notify" group, asked of nlctrl itself. */
static int resolve_notify_group(struct mnl_socket *nl, char *buf, uint32_t *id)
{
	struct notify_group g = { 0 };
	unsigned int seq = 1, portid = mnl_socket_get_portid(nl);
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	ssize_t n;
	int ret;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl, buf, WATCH_BUF_SIZE);
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, group_cb, &g);
	} while (ret > MNL_CB_STOP);
	if (ret < 0)
		return errno ? -errno : -EPROTO;
	if (!g.found)
		return -EPROTO;
	*id = g.id;
	return 0;
}

SECMAP_EXPORT int secmap_family_watch_open(struct secmap_family_watch **watch)
{
	struct secmap_family_watch *w;
	uint32_t group;
	int err, flags;

	if (!watch)
		return libsecmap_err(-EINVAL);
	*watch = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return libsecmap_err(-ENOMEM);
	w->nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!w->nl) {
		err = -errno;
		free(w);
		return libsecmap_err(err);
	}
	if (mnl_socket_bind(w->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail_errno;
	err = resolve_notify_group(w->nl, w->buf, &group);
	if (err)
		goto fail;
	if (mnl_socket_setsockopt(w->nl, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0)
		goto fail_errno;
	flags = fcntl(mnl_socket_get_fd(w->nl), F_GETFL);
	if (flags < 0 || fcntl(mnl_socket_get_fd(w->nl), F_SETFL, flags | O_NONBLOCK) < 0)
		goto fail_errno;
	*watch = w;
	return 0;
fail_errno:
	err = -errno;
fail:
	mnl_socket_close(w->nl);
	free(w);
	return libsecmap_err(err);
}

SECMAP_EXPORT int secmap_family_watch_fd(const struct secmap_family_watch *watch)
{
	return watch ? mnl_socket_get_fd(watch->nl) : libsecmap_err(-EINVAL);
}

/* 1: NEWFAMILY, 0: DELFAMILY of "secmap" at @nlh; -1: another message. */
static int family_change(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *genl;
	const struct nlattr *attr;

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl))
		return -1;
	genl = mnl_nlmsg_get_payload(nlh);
	if (genl->cmd != CTRL_CMD_NEWFAMILY && genl->cmd != CTRL_CMD_DELFAMILY)
		return -1;
	mnl_attr_for_each(attr, nlh, sizeof(*genl)) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_NAME &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0 &&
		    !strcmp(mnl_attr_get_str(attr), SECMAP_GENL_NAME))
			return genl->cmd == CTRL_CMD_NEWFAMILY;
	}
	return -1;
}

SECMAP_EXPORT int secmap_family_watch_next(struct secmap_family_watch *watch)
{
	const struct nlmsghdr *nlh;
	ssize_t n;
	int ret;

	if (!watch)
		return libsecmap_err(-EINVAL);
	for (;;) {
		while (watch->off < watch->len) {
			nlh = (const struct nlmsghdr *)(watch->buf + watch->off);
			if (!libsecmap_nlmsg_ok(nlh, watch->len - watch->off)) {
				watch->off = watch->len;
				break;
			}
			watch->off += MNL_ALIGN(nlh->nlmsg_len);
			ret = family_change(nlh);
			if (ret >= 0)
				return ret;
		}
		n = recv(mnl_socket_get_fd(watch->nl), watch->buf, sizeof(watch->buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		/* Overrun: changes were missed; the caller checks the family itself. */
		if (n < 0 && errno == ENOBUFS)
			return libsecmap_err(-ENOBUFS);
		if (n < 0)
			return libsecmap_err(errno == EWOULDBLOCK ? -EAGAIN : -errno);
		watch->len = (size_t)n;
		watch->off = 0;
	}
}

SECMAP_EXPORT void secmap_family_watch_close(struct secmap_family_watch *watch)
{
	if (!watch)
		return;
	mnl_socket_close(watch->nl);
	free(watch);
}
