/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello_rdma: the smallest RDMA program worth capturing. A client connects
 * to a server with rdma_cm (an RC queue pair each), sends one message, and
 * both wait for its completion; each prints its QP number first, so that
 * its traffic can be filtered in Wireshark (docs/tutorial.md).
 *
 *   hello_rdma -s PORT          server: accept one client, print its message
 *   hello_rdma -c ADDR PORT     client: send "hello, RDMA" to ADDR:PORT
 *
 * Build: cc -o hello_rdma hello_rdma.c -lrdmacm -libverbs
 * It is written against rdma-core's headers only, and runs the same on a
 * real HCA, on rxe, and on a madpmd node (madpmd-run --node NODE ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

static int
fail(const char *what)
{
	perror(what);
	return 1;
}

int
main(int argc, char **argv)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct rdma_cm_id *listener = NULL, *id = NULL;
	struct ibv_qp_init_attr attr;
	struct ibv_mr *mr = NULL;
	struct ibv_wc wc;
	char buf[64];
	int server, rc = 1;

	server = argc == 3 && !strcmp(argv[1], "-s");
	if (!server && !(argc == 4 && !strcmp(argv[1], "-c"))) {
		fprintf(stderr, "usage: %s -s PORT | -c ADDR PORT\n", argv[0]);
		return 2;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (server)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(server ? NULL : argv[2], argv[argc - 1], &hints,
			     &res))
		return fail("rdma_getaddrinfo");

	/* one send, one receive, every send completed to the CQ */
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.sq_sig_all = 1;
	if (server) {
		if (rdma_create_ep(&listener, res, NULL, &attr) ||
		    rdma_listen(listener, 1)) {
			fail("listen");
			goto out;
		}
		printf("server: listening on port %s\n", argv[2]);
		fflush(stdout);
		if (rdma_get_request(listener, &id)) {
			fail("rdma_get_request");
			goto out;
		}
	} else if (rdma_create_ep(&id, res, NULL, &attr)) {
		fail("rdma_create_ep");
		goto out;
	}
	printf("%s: QP 0x%06x\n", server ? "server" : "client",
	       id->qp->qp_num);
	fflush(stdout);

	memset(buf, 0, sizeof(buf));
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	if (!mr) {
		fail("rdma_reg_msgs");
		goto out;
	}
	if (server) {
		/* the receive goes first: a send to a QP without one is an
		 * RNR NAK */
		if (rdma_post_recv(id, NULL, buf, sizeof(buf), mr) ||
		    rdma_accept(id, NULL)) {
			fail("accept");
			goto out;
		}
		if (rdma_get_recv_comp(id, &wc) != 1 ||
		    wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "receive: %s\n",
				ibv_wc_status_str(wc.status));
			goto out;
		}
		printf("server: received \"%.*s\" (%u bytes)\n",
		       (int)wc.byte_len, buf, wc.byte_len);
	} else {
		if (rdma_connect(id, NULL)) {
			fail("rdma_connect");
			goto out;
		}
		snprintf(buf, sizeof(buf), "hello, RDMA");
		if (rdma_post_send(id, NULL, buf, strlen(buf), mr, 0)) {
			fail("rdma_post_send");
			goto out;
		}
		if (rdma_get_send_comp(id, &wc) != 1 ||
		    wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "send: %s\n",
				ibv_wc_status_str(wc.status));
			goto out;
		}
		printf("client: sent \"%s\"\n", buf);
	}
	rc = 0;
	rdma_disconnect(id);
out:
	if (mr)
		rdma_dereg_mr(mr);
	if (id)
		rdma_destroy_ep(id);
	if (listener)
		rdma_destroy_ep(listener);
	rdma_freeaddrinfo(res);
	return rc;
}
