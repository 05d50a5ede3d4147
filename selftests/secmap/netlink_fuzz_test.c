// SPDX-License-Identifier: GPL-2.0
/*
 * In the VM: a seeded generator of malformed and random requests to the
 * secmap family (every command and some that do not exist, wrong versions,
 * flags and reserved bits, unknown, duplicate, oversized, truncated and
 * nested attributes, truncated headers; do and dump), sent from a process
 * with CAP_SYSLOG and one without, while another loads and unloads modules.
 * Each answer must be well-formed: an error (with a terminated extack
 * message, where there is one) or replies whose attributes parse, ending as
 * netlink says it ends. What the kernel thinks of it is on the console
 * (KASAN, lockdep on the debug kernel), which vm-run.sh checks.
 *
 * Requests and seed: /etc/secmap/netlink-fuzz-{requests,seed}, written by
 * vm-run.sh from SECMAP_NETLINK_FUZZ_REQUESTS and SECMAP_NETLINK_FUZZ_SEED;
 * without a seed, the time. Both are printed, so a run can be repeated.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "kselftest_harness.h"
#include <linux/secmap.h>

#include "vm_util.h"

#define LATE_KO		TEST_MODULE_DIR "/secmap_test_late.ko"
#define REQUESTS_FILE	"/etc/secmap/netlink-fuzz-requests"
#define SEED_FILE	"/etc/secmap/netlink-fuzz-seed"
/* A socket lives this many requests: a subscribed one gathers events. */
#define REQUESTS_PER_SOCKET	64
#define ANSWER_TIMEOUT_MS	10000
#define MAX_ERRNO_COUNTED	134

struct fuzz_stats {
	unsigned long requests;
	unsigned long acks;		/* error 0 */
	unsigned long errors;		/* negative error */
	unsigned long with_extack;	/* an error with NLMSGERR_ATTR_MSG */
	unsigned long replies;		/* data messages (do and dump) */
	unsigned long dumps_done;	/* NLMSG_DONE */
	unsigned long events;		/* notifications of a subscribed socket */
	unsigned long subscribed;	/* sockets that asked for events and joined */
	unsigned long subscribe_refused;	/* ...whose SUBSCRIBE was refused */
	unsigned long unanswered;	/* no header to answer: none expected */
	unsigned long overruns;		/* ENOBUFS: the socket was replaced */
	unsigned long refused;		/* send() itself failed */
	unsigned long bad;		/* malformed or missing answers */
	unsigned long errno_count[MAX_ERRNO_COUNTED];
};

struct fuzzer {
	uint64_t rng;
	struct mnl_socket *sock;
	unsigned int sock_requests;
	uint32_t portid;
	struct family_ids ids;		/* the family's and its "events" group's */
	bool joined;			/* this socket is in the events group */
	uint32_t seq;
	struct fuzz_stats st;
	char first_bad[256];
	char buf[65536];
	char out[4096];
};

static uint64_t next_rand(struct fuzzer *f)
{
	/* xorshift64*: reproducible from the printed seed on any libc. */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 0x2545f4914f6cdd1dULL;
}

static unsigned int below(struct fuzzer *f, unsigned int n)
{
	return next_rand(f) % n;
}

static void note_bad(struct fuzzer *f, const char *what)
{
	f->st.bad++;
	if (!f->first_bad[0])
		snprintf(f->first_bad, sizeof(f->first_bad), "request %lu: %s",
			 f->st.requests, what);
}

static int read_answer(struct fuzzer *f, bool dump);

/* A well-formed request for @cmd in f->out, with an ACK asked for. */
static struct nlmsghdr *put_request(struct fuzzer *f, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(f->out);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = f->ids.family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++f->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = SECMAP_GENL_VERSION;
	return nlh;
}

/*
 * Half the sockets ask for events as a monitor does (SUBSCRIBE, then join
 * the group), so that notifications arrive between the answers and the
 * answers are read past them. Without CAP_SYSLOG the SUBSCRIBE must be
 * refused and the socket joins anyway: it must then receive nothing.
 */
static int subscribe(struct fuzzer *f)
{
	struct nlmsghdr *nlh = put_request(f, SECMAP_CMD_EVENTS_SUBSCRIBE);
	unsigned long errors = f->st.errors;
	int ret;

	if (mnl_socket_sendto(f->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	ret = read_answer(f, false);
	if (ret < 0)
		return -EPROTO;
	if (ret == 0)
		return 0;	/* overrun: the caller's next socket tries again */
	if (f->st.errors != errors)
		f->st.subscribe_refused++;
	if (mnl_socket_setsockopt(f->sock, NETLINK_ADD_MEMBERSHIP, &f->ids.mcgrp_events,
				  sizeof(f->ids.mcgrp_events)) < 0)
		return -errno;
	f->joined = true;
	f->st.subscribed++;
	return 0;
}

static int open_socket(struct fuzzer *f)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	int one = 1, size = 4 << 20, ret;

	if (f->sock)
		mnl_socket_close(f->sock);
	f->sock_requests = 0;
	f->joined = false;
	f->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!f->sock || mnl_socket_bind(f->sock, 0, MNL_SOCKET_AUTOPID))
		return -errno;
	f->portid = mnl_socket_get_portid(f->sock);
	mnl_socket_setsockopt(f->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	/* Room for the events of a subscribed socket (root only; else best effort). */
	if (setsockopt(mnl_socket_get_fd(f->sock), SOL_SOCKET, SO_RCVBUFFORCE,
		       &size, sizeof(size)))
		setsockopt(mnl_socket_get_fd(f->sock), SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (f->ids.family)
		return below(f, 2) ? subscribe(f) : 0;

	nlh = mnl_nlmsg_put_header(f->out);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++f->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, SECMAP_GENL_NAME);
	if (mnl_socket_sendto(f->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	ret = mnl_socket_recvfrom(f->sock, f->buf, sizeof(f->buf));
	if (ret < 0)
		return -errno;
	mnl_cb_run(f->buf, ret, f->seq, f->portid, family_ids_cb, &f->ids);
	return f->ids.family && f->ids.mcgrp_events ? 0 : -ENOENT;
}

/* Payload bytes: random, or a value a field could really hold. */
static void fill_payload(struct fuzzer *f, char *p, unsigned int len)
{
	static const char *const names[] = {
		"secmap", "secmap_test_late", "secmap_test_sections", "dummy", "", "x",
	};
	unsigned int i;

	switch (below(f, 4)) {
	case 0: {
		const char *s = names[below(f, sizeof(names) / sizeof(names[0]))];

		memset(p, 0, len);
		memcpy(p, s, strlen(s) < len ? strlen(s) : len);
		/* Sometimes not terminated. */
		if (len && below(f, 3) == 0)
			memset(p, 'A', len);
		break;
	}
	case 1:
		memset(p, below(f, 2) ? 0 : 0xff, len);
		break;
	default:
		for (i = 0; i < len; i++)
			p[i] = (char)next_rand(f);
	}
}

/* Attributes at @p, at most @room bytes: returns how many bytes were put. */
static unsigned int put_attrs(struct fuzzer *f, char *p, unsigned int room, int depth)
{
	unsigned int used = 0, n = below(f, 7), i;

	for (i = 0; i < n; i++) {
		struct nlattr *a = (struct nlattr *)(p + used);
		unsigned int len, total;

		if (room - used < NLA_HDRLEN + 8)
			break;
		/* Small: every type the policies know and a few beyond. */
		a->nla_type = below(f, 12);
		if (below(f, 8) == 0)
			a->nla_type |= NLA_F_NESTED;
		if (below(f, 16) == 0)
			a->nla_type |= NLA_F_NET_BYTEORDER;
		if (below(f, 32) == 0)
			a->nla_type = (uint16_t)next_rand(f);
		switch (below(f, 6)) {
		case 0:
			len = 4;
			break;
		case 1:
			len = 8;
			break;
		case 2:
			len = below(f, 3);
			break;
		default:
			len = below(f, 80);
		}
		if (len > room - used - NLA_HDRLEN)
			len = room - used - NLA_HDRLEN;
		if ((a->nla_type & NLA_F_NESTED) && depth < 3 && len >= NLA_HDRLEN)
			len = put_attrs(f, p + used + NLA_HDRLEN, len, depth + 1);
		else
			fill_payload(f, p + used + NLA_HDRLEN, len);
		a->nla_len = NLA_HDRLEN + len;
		/* Lengths that lie: truncated, or past the message. */
		if (below(f, 24) == 0)
			a->nla_len = below(f, NLA_HDRLEN);
		else if (below(f, 24) == 0)
			a->nla_len += 1 + below(f, 512);
		total = NLA_ALIGN(NLA_HDRLEN + len);
		if (total > room - used)
			total = room - used;
		used += total;
		/* The same attribute again. */
		if (below(f, 10) == 0 && room - used >= total) {
			memmove(p + used, a, total);
			used += total;
		}
	}
	return used;
}

/* One request into f->out; returns its length on the wire. */
static unsigned int build_request(struct fuzzer *f, bool *answer_expected)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)f->out;
	struct genlmsghdr *genl;
	unsigned int len;

	memset(f->out, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_type = f->ids.family;
	/* A family id that is not registered (they are allocated from 16 up). */
	if (below(f, 64) == 0)
		nlh->nlmsg_type = (uint16_t)next_rand(f) | 0x8000;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (below(f, 3) == 0)
		nlh->nlmsg_flags |= NLM_F_DUMP;
	if (below(f, 8) == 0)
		nlh->nlmsg_flags |= (uint16_t)next_rand(f) & ~NLM_F_ACK;
	if (below(f, 32) == 0)
		nlh->nlmsg_flags &= ~NLM_F_REQUEST;
	nlh->nlmsg_seq = ++f->seq;
	genl = (struct genlmsghdr *)(f->out + NLMSG_HDRLEN);
	/* Mostly the commands with handlers, so that most get past the lookup. */
	if (below(f, 4)) {
		static const uint8_t cmds[] = {
			SECMAP_CMD_MODULE_GET, SECMAP_CMD_INFO_GET, SECMAP_CMD_EVENTS_SUBSCRIBE,
		};

		genl->cmd = cmds[below(f, sizeof(cmds))];
	} else {
		genl->cmd = below(f, 256);
	}
	genl->version = below(f, 4) ? SECMAP_GENL_VERSION : below(f, 256);
	if (below(f, 16) == 0)
		genl->reserved = (uint16_t)next_rand(f);
	len = NLMSG_HDRLEN + GENL_HDRLEN;
	len += put_attrs(f, f->out + len, sizeof(f->out) - len, 0);

	*answer_expected = true;
	switch (below(f, 40)) {
	case 0:
		/* Cut into the genetlink header: the core answers EINVAL. */
		len = NLMSG_HDRLEN + below(f, GENL_HDRLEN);
		break;
	case 1:
		/* Cut into the netlink header: dropped without an answer. */
		len = below(f, NLMSG_HDRLEN);
		*answer_expected = false;
		break;
	case 2:
		/* nlmsg_len past the datagram: dropped as well. */
		nlh->nlmsg_len = len + 1 + below(f, 256);
		*answer_expected = false;
		return len;
	case 3:
		/* A shorter nlmsg_len than sent: the tail is ignored. */
		if (len > NLMSG_HDRLEN + GENL_HDRLEN)
			len -= below(f, len - NLMSG_HDRLEN - GENL_HDRLEN);
		break;
	}
	if (len >= sizeof(*nlh))
		nlh->nlmsg_len = len;
	return len;
}

/* The extack TLVs after an error must parse, and its message be terminated. */
static bool check_error(struct fuzzer *f, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	unsigned int off;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*err)) {
		note_bad(f, "NLMSG_ERROR too short");
		return false;
	}
	if (err->error > 0 || err->error < -4095) {
		note_bad(f, "NLMSG_ERROR code out of range");
		return false;
	}
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return true;
	off = sizeof(*err);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(err->msg);
	if (NLMSG_HDRLEN + off > nlh->nlmsg_len) {
		note_bad(f, "extack TLVs start past the message");
		return false;
	}
	mnl_attr_for_each(attr, nlh, off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG) {
			if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0) {
				note_bad(f, "extack message not a terminated string");
				return false;
			}
			f->st.with_extack++;
		}
	}
	return true;
}

static int attr_ok_cb(const struct nlattr *attr, void *data)
{
	(void)attr;
	(void)data;
	return MNL_CB_OK;
}

/*
 * Reads until the request's answer is complete. Returns 1 when it is, 0
 * when a socket overrun may have eaten it, -1 on a malformed answer or none.
 */
static int read_answer(struct fuzzer *f, bool dump)
{
	int fd = mnl_socket_get_fd(f->sock);

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *nlh;
		int ret;

		if (poll(&pfd, 1, ANSWER_TIMEOUT_MS) != 1) {
			note_bad(f, "no answer within 10 s");
			return -1;
		}
		ret = recv(fd, f->buf, sizeof(f->buf), MSG_TRUNC);
		if (ret < 0 && errno == ENOBUFS) {
			f->st.overruns++;
			return 0;
		}
		if (ret < 0 || ret > (int)sizeof(f->buf)) {
			note_bad(f, ret < 0 ? "recv failed" : "answer larger than 64 KiB");
			return -1;
		}
		for (nlh = (struct nlmsghdr *)f->buf; mnl_nlmsg_ok(nlh, ret);
		     nlh = mnl_nlmsg_next(nlh, &ret)) {
			/* A subscribed socket's events: multicast, sequence 0. */
			if (nlh->nlmsg_seq == 0 && nlh->nlmsg_type == f->ids.family) {
				f->st.events++;
				if (mnl_attr_parse(nlh, GENL_HDRLEN, attr_ok_cb, NULL) < 0) {
					note_bad(f, "event attributes do not parse");
					return -1;
				}
				continue;
			}
			if (nlh->nlmsg_seq != f->seq || nlh->nlmsg_pid != f->portid) {
				note_bad(f, "answer with another sequence or port");
				return -1;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

				if (!check_error(f, nlh))
					return -1;
				if (err->error) {
					f->st.errors++;
					if (-err->error < MAX_ERRNO_COUNTED)
						f->st.errno_count[-err->error]++;
				} else {
					f->st.acks++;
				}
				return 1;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				if (!dump) {
					note_bad(f, "NLMSG_DONE for a do request");
					return -1;
				}
				/* Its payload is the dump's error, 0 or negative. */
				if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(int) ||
				    *(int *)mnl_nlmsg_get_payload(nlh) > 0) {
					note_bad(f, "NLMSG_DONE without a valid error code");
					return -1;
				}
				/* A dump that started is not acked: DONE ends it. */
				f->st.dumps_done++;
				return 1;
			}
			if (nlh->nlmsg_type != f->ids.family ||
			    nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
			    mnl_attr_parse(nlh, GENL_HDRLEN, attr_ok_cb, NULL) < 0) {
				note_bad(f, "reply of another type or with attributes that do not parse");
				return -1;
			}
			f->st.replies++;
		}
		if (ret) {
			note_bad(f, "datagram ends inside a message");
			return -1;
		}
	}
}

/* A request with no header to answer, then one that must be answered first. */
static int check_unanswered(struct fuzzer *f)
{
	struct nlmsghdr *nlh = put_request(f, SECMAP_CMD_INFO_GET);

	if (mnl_socket_sendto(f->sock, nlh, nlh->nlmsg_len) < 0) {
		note_bad(f, "send of the INFO_GET after a headerless request failed");
		return -1;
	}
	return read_answer(f, false);
}

static int fuzz(struct fuzzer *f, unsigned long requests)
{
	unsigned long i;

	for (i = 0; i < requests; i++) {
		bool answer_expected, dump;
		unsigned int len;
		int ret;

		if (!f->sock || f->sock_requests++ >= REQUESTS_PER_SOCKET) {
			ret = open_socket(f);
			if (ret)
				return ret;
		}
		len = build_request(f, &answer_expected);
		f->st.requests++;
		dump = len >= NLMSG_HDRLEN &&
		       (((struct nlmsghdr *)f->out)->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
		if (send(mnl_socket_get_fd(f->sock), f->out, len, 0) < 0) {
			/* The kernel refuses some at send time; that is an answer too. */
			f->st.refused++;
			continue;
		}
		if (!answer_expected) {
			f->st.unanswered++;
			ret = check_unanswered(f);
		} else if (!(((struct nlmsghdr *)f->out)->nlmsg_flags & NLM_F_REQUEST) ||
			   ((struct nlmsghdr *)f->out)->nlmsg_type != f->ids.family) {
			/* Not a request, or another family: acked, nothing else. */
			ret = read_answer(f, false);
		} else {
			ret = read_answer(f, dump);
		}
		if (ret < 0)
			return -EPROTO;
		if (ret == 0 && open_socket(f))
			return -errno;
	}
	return 0;
}

/*
 * After the fuzzing, on a socket of its own that asked for events and
 * joined: the events that reach it within @ms (stopping at the first when
 * @first), or -1. The loader is still loading, so a socket allowed events
 * gets one within a second or so; one refused must get none at all.
 */
static long events_within(struct fuzzer *f, int ms, bool first)
{
	struct timespec start, now;
	long events = 0;
	int fd;

	if (open_socket(f) || (!f->joined && (subscribe(f) || !f->joined)))
		return -1;
	fd = mnl_socket_get_fd(f->sock);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *nlh;
		long left;
		int ret;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = ms - ((now.tv_sec - start.tv_sec) * 1000 +
			     (now.tv_nsec - start.tv_nsec) / 1000000);
		if (left <= 0 || poll(&pfd, 1, left) != 1)
			return events;
		ret = recv(fd, f->buf, sizeof(f->buf), 0);
		if (ret < 0)
			return errno == ENOBUFS ? events + 1 : -1;	/* lost: there were some */
		for (nlh = (struct nlmsghdr *)f->buf; mnl_nlmsg_ok(nlh, ret);
		     nlh = mnl_nlmsg_next(nlh, &ret))
			if (nlh->nlmsg_seq == 0 && nlh->nlmsg_type == f->ids.family)
				events++;
		if (first && events)
			return events;
	}
}

static int drop_cap_syslog(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	int i;

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	for (i = 0; i < 2; i++) {
		data[i].effective &= ~(uint32_t)((1ULL << CAP_SYSLOG) >> (32 * i));
		data[i].permitted &= ~(uint32_t)((1ULL << CAP_SYSLOG) >> (32 * i));
	}
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

static void print_stats(const char *who, uint64_t seed, const struct fuzz_stats *st)
{
	int e;

	printf("# netlink fuzz (%s, seed %" PRIu64 "): %lu requests: %lu acks, %lu errors "
	       "(%lu with an extack message), %lu replies, %lu dumps done, %lu events, "
	       "%lu without a header to answer, %lu refused by send, %lu overruns, %lu malformed; "
	       "%lu sockets joined the events group, %lu of them refused SUBSCRIBE\n",
	       who, seed, st->requests, st->acks, st->errors, st->with_extack, st->replies,
	       st->dumps_done, st->events, st->unanswered, st->refused, st->overruns, st->bad,
	       st->subscribed, st->subscribe_refused);
	printf("# netlink fuzz (%s): errors:", who);
	for (e = 1; e < MAX_ERRNO_COUNTED; e++)
		if (st->errno_count[e])
			printf(" %s %lu", strerror(e), st->errno_count[e]);
	printf("\n");
}

/* A number from @path, or @fallback. */
static uint64_t read_number(const char *path, uint64_t fallback)
{
	FILE *file = fopen(path, "re");
	uint64_t n;

	if (!file)
		return fallback;
	if (fscanf(file, "%" SCNu64, &n) != 1)
		n = fallback;
	fclose(file);
	return n;
}

FIXTURE(netlink_fuzz) {
};

FIXTURE_SETUP(netlink_fuzz)
{
}

FIXTURE_TEARDOWN(netlink_fuzz)
{
}

/* 100 000 requests take minutes under TCG on the debug kernel. */
TEST_F_TIMEOUT(netlink_fuzz, random_requests_get_well_formed_answers, 1500)
{
	uint64_t seed = read_number(SEED_FILE, (uint64_t)time(NULL));
	unsigned long n = read_number(REQUESTS_FILE, 10000);
	pid_t loader, unprivileged;
	struct fuzzer *f;
	long late;
	int status, ret;

	printf("# netlink fuzz: seed %" PRIu64 ", %lu requests with CAP_SYSLOG and %lu without; "
	       "repeat with SECMAP_NETLINK_FUZZ_SEED=%" PRIu64
	       " SECMAP_NETLINK_FUZZ_REQUESTS=%lu\n", seed, n - n / 4, n / 4, seed, n);
	fflush(stdout);

	/* Modules come and go all along: events, and replies that change. */
	loader = fork();
	ASSERT_LE(0, loader);
	if (!loader) {
		/* Not past the test, should the harness kill it on a timeout. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			load_module(LATE_KO);
			unload_module("secmap_test_late");
		}
	}

	/* A quarter of the requests from a process without CAP_SYSLOG. */
	unprivileged = fork();
	ASSERT_LE(0, unprivileged);
	if (!unprivileged) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		f = calloc(1, sizeof(*f));
		if (!f || drop_cap_syslog())
			_exit(2);
		f->rng = (seed ^ 0x9e3779b97f4a7c15ULL) | 1;
		ret = fuzz(f, n / 4);
		print_stats("without CAP_SYSLOG", seed, &f->st);
		if (f->first_bad[0])
			printf("# netlink fuzz (without CAP_SYSLOG): first fault: %s\n", f->first_bad);
		/* Joined but never allowed: not one event may reach it. */
		late = events_within(f, 3000, false);
		if (!f->st.subscribed || f->st.subscribe_refused != f->st.subscribed ||
		    f->st.events || late)
			printf("# netlink fuzz (without CAP_SYSLOG): SUBSCRIBE refused %lu of %lu "
			       "times, %lu events while fuzzing and %ld in 3 s after "
			       "(want all, 0 and 0)\n", f->st.subscribe_refused, f->st.subscribed,
			       f->st.events, late);
		fflush(stdout);
		_exit(ret || f->st.bad || f->st.requests != n / 4 || !f->st.subscribed ||
		      f->st.subscribe_refused != f->st.subscribed || f->st.events || late ?
		      1 : 0);
	}

	f = calloc(1, sizeof(*f));
	ASSERT_NE(NULL, f);
	f->rng = seed | 1;
	ret = fuzz(f, n - n / 4);
	/* Events came between the answers above only if a load fell in a subscribed window. */
	late = events_within(f, 30000, true);
	print_stats("with CAP_SYSLOG", seed, &f->st);
	printf("# netlink fuzz (with CAP_SYSLOG): %ld events on a subscribed socket after\n", late);
	if (f->first_bad[0])
		printf("# netlink fuzz (with CAP_SYSLOG): first fault: %s\n", f->first_bad);

	ASSERT_EQ(unprivileged, waitpid(unprivileged, &status, 0));
	kill(loader, SIGKILL);
	waitpid(loader, NULL, 0);
	unload_module("secmap_test_late");

	EXPECT_EQ(0, ret) TH_LOG("fuzzing stopped early: %s", strerror(-ret));
	EXPECT_EQ(0, f->st.bad);
	EXPECT_EQ(n - n / 4, f->st.requests);
	EXPECT_LT(0, f->st.replies) TH_LOG("no request was answered with data");
	EXPECT_LT(0, f->st.with_extack) TH_LOG("no error carried an extack message");
	EXPECT_LT(0, f->st.subscribed) TH_LOG("no socket joined the events group");
	EXPECT_EQ(0, f->st.subscribe_refused) TH_LOG("SUBSCRIBE refused with CAP_SYSLOG");
	EXPECT_LT(0, late) TH_LOG("no event reached a subscribed socket in 30 s");
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the process without CAP_SYSLOG found faults (status %#x)", status);
	free(f);
}

TEST_HARNESS_MAIN
