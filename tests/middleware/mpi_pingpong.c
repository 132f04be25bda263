/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An MPI program as a user writes one, run by tests/middleware between
 * two madpmd nodes (one rank each, Open MPI over UCX over the drop-in
 * libibverbs): a ping-pong from 8 B to 1 MiB whose every byte is checked,
 * then MPI_Allreduce of 64Ki integers against the sum worked out here.
 * Prints "pingpong SIZE LAT_US BW_MBPS" lines (rank 0) and
 * "allreduce ok N" (each rank); exits 0 only when every check held.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE	(1 << 20)
#define NRED		(64 * 1024)

static void
fill(unsigned char *b, int len, int iter, int from)
{
	int i;

	for (i = 0; i < len; i++)
		b[i] = (unsigned char)(i * 7 + iter * 13 + from);
}

static int
check(const unsigned char *b, int len, int iter, int from)
{
	int i;

	for (i = 0; i < len; i++)
		if (b[i] != (unsigned char)(i * 7 + iter * 13 + from))
			return i;
	return -1;
}

static int
pingpong(int rank, unsigned char *tx, unsigned char *rx)
{
	int size, iter, iters, bad = 0, at;
	double t0, us;

	for (size = 8; size <= MAX_SIZE; size *= 4) {
		iters = size >= 65536 ? 50 : 500;
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (iter = 0; iter < iters; iter++) {
			if (rank == 0) {
				fill(tx, size, iter, 0);
				MPI_Send(tx, size, MPI_BYTE, 1, iter,
					 MPI_COMM_WORLD);
				MPI_Recv(rx, size, MPI_BYTE, 1, iter,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				at = check(rx, size, iter, 1);
			} else {
				MPI_Recv(rx, size, MPI_BYTE, 0, iter,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				at = check(rx, size, iter, 0);
				fill(tx, size, iter, 1);
				MPI_Send(tx, size, MPI_BYTE, 0, iter,
					 MPI_COMM_WORLD);
			}
			if (at >= 0 && !bad++)
				fprintf(stderr, "rank %d: %d B message %d: byte %d wrong\n",
					rank, size, iter, at);
		}
		us = (MPI_Wtime() - t0) * 1e6 / iters / 2;
		if (rank == 0)
			printf("pingpong %d %.2f %.1f\n", size, us, size / us);
	}
	return bad;
}

static int
allreduce(int rank, int nranks)
{
	int *in = malloc(NRED * sizeof(int)), *out = malloc(NRED * sizeof(int));
	int i, r, bad = 0;
	long want;

	if (!in || !out)
		return 1;
	for (i = 0; i < NRED; i++)
		in[i] = i * (rank + 1) + rank;
	MPI_Allreduce(in, out, NRED, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < NRED; i++) {
		for (want = 0, r = 0; r < nranks; r++)
			want += (long)i * (r + 1) + r;
		if (out[i] != (int)want && !bad++)
			fprintf(stderr, "rank %d: allreduce[%d] = %d, not %ld\n",
				rank, i, out[i], want);
	}
	if (!bad)
		printf("allreduce ok %d\n", NRED);
	free(in);
	free(out);
	return bad;
}

int
main(int argc, char **argv)
{
	unsigned char *tx = malloc(MAX_SIZE), *rx = malloc(MAX_SIZE);
	int rank, nranks, bad = 0, all = 0;
	char name[MPI_MAX_PROCESSOR_NAME];
	int len;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	MPI_Get_processor_name(name, &len);
	printf("rank %d of %d on %s, node %s\n", rank, nranks, name,
	       getenv("MADPMD_NODE") ? getenv("MADPMD_NODE") : "?");
	if (!tx || !rx || nranks != 2) {
		fprintf(stderr, "rank %d: needs two ranks and memory\n", rank);
		bad = 1;
	} else {
		bad += pingpong(rank, tx, rx);
		bad += allreduce(rank, nranks);
	}
	MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	free(tx);
	free(rx);
	return all ? 1 : 0;
}
