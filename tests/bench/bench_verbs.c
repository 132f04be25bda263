/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_poll_cq's throughput, with its limit measured beside it.
 *
 *   bench_verbs <device> poll    a full CQ drained by one core
 *   bench_verbs <device> stream  completions written by the daemon on one
 *                                core while this process polls on another
 *   bench_verbs bare poll|stream the same loops over a plain array of
 *                                64-byte entries (no library, no daemon):
 *                                the limit of the machine
 *
 * The CQ is filled with real completions: receive WRs on eight QPs whose
 * move to Error flushes them (IBA 10.3.1), 65536 at a time, written by the
 * daemon into the shared CQ ring. Output, one line:
 *   mode=poll completions=N seconds=S rate=R (completions per second)
 * Linked against rdma-core's libibverbs; run over madpmd with madpmd-run.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define NQP		8
#define PER_QP		8192
#define TOTAL		(NQP * PER_QP)
#define ROUNDS		10
#define BATCH		16

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the bare limit: 64-byte entries with an owner byte ---- */

struct entry {
	uint64_t wr_id;
	uint32_t f[11];
	uint8_t pad[11];
	uint8_t owner;
};

static int
bare(const char *mode)
{
	size_t n = TOTAL;
	struct entry *ring = mmap(NULL, n * sizeof(*ring),
				  PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct ibv_wc wc[BATCH];
	double t0 = 0, t1, best = 0;
	uint64_t sum = 0;
	int r;

	if (ring == MAP_FAILED)
		return 1;
	for (r = 0; r < ROUNDS; r++) {
		uint8_t want = (uint8_t)(1 + (r & 1));
		size_t i = 0, k;
		pid_t pid = -1;

		if (!strcmp(mode, "poll")) {
			for (k = 0; k < n; k++) {
				ring[k].wr_id = k;
				ring[k].owner = want;
			}
		} else {
			pid = fork();
			if (pid == 0) {
				usleep(1000);
				for (k = 0; k < n; k++) {
					ring[k].wr_id = k;
					ring[k].f[0] = 5;
					__atomic_store_n(&ring[k].owner, want,
							 __ATOMIC_RELEASE);
				}
				_exit(0);
			}
		}
		while (i < n) {
			unsigned int got = 0;

			while (got < BATCH && i < n &&
			       __atomic_load_n(&ring[i].owner,
					       __ATOMIC_ACQUIRE) == want) {
				wc[got].wr_id = ring[i].wr_id;
				wc[got].status = ring[i].f[0];
				wc[got].opcode = ring[i].f[1];
				wc[got].byte_len = ring[i].f[3];
				wc[got].qp_num = ring[i].f[5];
				got++;
				i++;
			}
			if (got && i == got)
				t0 = now_s();
			if (got)
				sum += wc[got - 1].wr_id;
		}
		t1 = now_s();
		if (pid > 0)
			waitpid(pid, NULL, 0);
		if ((double)(n - BATCH) / (t1 - t0) > best)
			best = (double)(n - BATCH) / (t1 - t0);
	}
	printf("mode=%s bare=1 completions=%zu rate=%.0f check=%llu\n", mode, n,
	       best, (unsigned long long)(sum & 1));
	return 0;
}

/* ---- over the drop-in ---- */

static struct ibv_qp *qp[NQP];
static struct ibv_context *ctx;

static void
to_error(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int i;

	for (i = 0; i < NQP; i++)
		ibv_modify_qp(qp[i], &a, IBV_QP_STATE);
}

static void *
flusher(void *arg)
{
	(void)arg;
	usleep(1000);
	to_error();
	return NULL;
}

static int
fill(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_mr *mr, char *buf)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = PER_QP,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_sge sg = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sg, .num_sge = 1 }, *bad;
	int i, k;

	for (i = 0; i < NQP; i++) {
		if (qp[i])
			ibv_destroy_qp(qp[i]);
		qp[i] = ibv_create_qp(pd, &ia);
		if (!qp[i] || ibv_modify_qp(qp[i], &a, IBV_QP_STATE |
					    IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					    IBV_QP_ACCESS_FLAGS))
			return -1;
		for (k = 0; k < PER_QP; k++) {
			wr.wr_id = (uint64_t)(i * PER_QP + k);
			if (ibv_post_recv(qp[i], &wr, &bad))
				return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct ibv_device **l;
	struct ibv_wc wc[BATCH];
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	double t0 = 0, t1, best = 0;
	char *buf;
	int r, i, stream;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "bare"))
		return bare(argv[2]);
	stream = !strcmp(argv[2], "stream");
	l = ibv_get_device_list(NULL);
	for (i = 0; l && l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), argv[1]))
			ctx = ibv_open_device(l[i]);
	if (!ctx) {
		fprintf(stderr, "bench_verbs: no device %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, TOTAL, NULL, NULL, 0);
	buf = aligned_alloc(4096, 4096);
	mr = pd && buf ? ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!cq || !mr) {
		fprintf(stderr, "bench_verbs: setup failed\n");
		return 1;
	}
	for (r = 0; r < ROUNDS; r++) {
		pthread_t th;
		long got = 0;

		if (fill(pd, cq, mr, buf)) {
			fprintf(stderr, "bench_verbs: fill failed\n");
			return 1;
		}
		if (stream)
			pthread_create(&th, NULL, flusher, NULL);
		else
			to_error();
		while (got < TOTAL) {
			int n = ibv_poll_cq(cq, BATCH, wc);

			if (n < 0) {
				fprintf(stderr, "bench_verbs: poll failed\n");
				return 1;
			}
			if (n && got == 0)
				t0 = now_s();
			got += n;
		}
		t1 = now_s();
		if (stream)
			pthread_join(th, NULL);
		if ((double)(TOTAL - BATCH) / (t1 - t0) > best)
			best = (double)(TOTAL - BATCH) / (t1 - t0);
	}
	printf("mode=%s bare=0 completions=%d rate=%.0f\n", argv[2], TOTAL,
	       best);
	for (i = 0; i < NQP; i++)
		ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(l);
	return 0;
}
