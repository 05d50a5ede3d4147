/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The netlink client's private state, shared by netlink.c (sockets, the
 * family, requests: dump, get, info) and events.c (subscription, the
 * events socket, the journal's replay, resyncs). messages.c parses what
 * both receive.
 */
#ifndef LIBSECMAP_CLIENT_H
#define LIBSECMAP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <libmnl/libmnl.h>

#include "internal.h"

#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

/*
 * The kernel sizes dump skbs up to 32 KiB when the reader offers that much.
 * Larger datagrams (a doit reply or an event for a module with very many
 * sections) are measured first and the buffer grows to fit.
 */
#define SECMAP_RECV_SIZE 32768

/* Events come in bursts (modprobe of a stack of modules): room for many. */
#define SECMAP_EVENT_RCVBUF (1 << 20)

/* Longest module name any kernel accepts: MODULE_NAME_LEN - 1 on 64-bit. */
#define SECMAP_MODULE_NAME_MAX 55

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct secmap_client {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	uint16_t family;
	uint32_t family_version;	/* 2 and later: the section table */
	uint32_t mcgrp_events;		/* 0: the family has no "events" group */
	unsigned long dump_retries;
	char *buf;
	size_t buf_size;

	/* The "events" socket, kept apart so replies and events never mix. */
	struct mnl_socket *ev_nl;
	char *ev_buf;
	size_t ev_size;
	size_t ev_len;			/* bytes of the last datagram in ev_buf */
	size_t ev_off;			/* of those, already handed out */
	struct libsecmap_event_state ev_state;
	/* Events the kernel's journal gave back after a loss, not yet handed out. */
	struct secmap_event **replay;
	size_t nr_replay, replay_off;
	uint64_t replayed;		/* in all */
};

struct recv_ctx {
	struct secmap_client *client;
	struct secmap_snapshot *snap;
	struct secmap_info *info;
	/* EVENTS_REPLAY: the events, in the order given. */
	struct secmap_event **evs;
	size_t nr_evs, cap_evs;
	int err;
	/* Saw the last message of the exchange: nothing is left queued. */
	bool done;
	bool have_family;
	bool have_info;
};

/* netlink.c, for events.c */
int client_cb_noop(const struct nlmsghdr *nlh, void *data);
ssize_t client_event_recv(int fd, char **buf, size_t *size);
int client_run_replies(struct mnl_socket *nl, char **buf, size_t *size, unsigned int seq,
		       mnl_cb_t cb, struct recv_ctx *ctx);
int client_run(struct secmap_client *c, struct nlmsghdr *req, mnl_cb_t cb,
	       struct recv_ctx *ctx);
uint8_t client_request_version(const struct secmap_client *c);
struct nlmsghdr *client_put_request(struct secmap_client *c, uint16_t type, uint16_t flags,
				    uint8_t cmd, uint8_t version);
void client_free_events(struct secmap_event **evs, size_t from, size_t n);
void client_events_covered(struct libsecmap_event_state *st, uint64_t seq);
int client_dump_covered(struct secmap_client *c, struct secmap_snapshot **snapshot,
			uint64_t *covered_seq);

#endif /* LIBSECMAP_CLIENT_H */
