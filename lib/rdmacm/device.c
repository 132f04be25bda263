/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs device: the one madpmd's libibverbs lists for the process's
 * node ($MADPMD_NODE, else the fabric's first), opened once and kept for
 * the life of the process as librdmacm keeps its cma_devices. Its default
 * PD lives while ids or device lists hold the device (ucma_get_device /
 * ucma_put_device).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm_priv.h"

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cma_device the_dev;
static uint8_t *link_layers;		/* per port, index port - 1 */
static int num_ports;

/* Open the device once. dev_lock held. */
static int
device_open(void)
{
	struct ibv_device_attr attr;
	struct ibv_port_attr pa;
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n = 0, i, rc;

	if (the_dev.verbs)
		return 0;
	list = ibv_get_device_list(&n);
	if (!list)
		return errno ? errno : ENODEV;
	ctx = n > 0 ? ibv_open_device(list[0]) : NULL;
	ibv_free_device_list(list);
	if (!ctx)
		return ENODEV;
	rc = ibv_query_device(ctx, &attr);
	if (rc)
		goto fail;
	link_layers = calloc(attr.phys_port_cnt ? attr.phys_port_cnt : 1, 1);
	if (!link_layers) {
		rc = ENOMEM;
		goto fail;
	}
	for (i = 1; i <= attr.phys_port_cnt; i++)
		link_layers[i - 1] = ibv_query_port(ctx, (uint8_t)i, &pa) ?
			IBV_LINK_LAYER_UNSPECIFIED : pa.link_layer;
	num_ports = attr.phys_port_cnt;
	the_dev.max_qp_wr = (uint32_t)attr.max_qp_wr;
	the_dev.max_initiator_depth = (uint8_t)attr.max_qp_init_rd_atom;
	the_dev.max_responder_resources = (uint8_t)attr.max_qp_rd_atom;
	the_dev.verbs = ctx;
	return 0;
fail:
	ibv_close_device(ctx);
	return rc;
}

int
cma_device_get(struct cma_device **dev)
{
	int rc;

	pthread_mutex_lock(&dev_lock);
	rc = device_open();
	if (rc)
		goto out;
	if (!the_dev.pd) {
		the_dev.pd = ibv_alloc_pd(the_dev.verbs);
		if (!the_dev.pd) {
			rc = errno ? errno : ENOMEM;
			goto out;
		}
	}
	the_dev.refs++;
	*dev = &the_dev;
out:
	pthread_mutex_unlock(&dev_lock);
	return rc;
}

void
cma_device_put(struct cma_device *dev)
{
	pthread_mutex_lock(&dev_lock);
	if (dev->refs && !--dev->refs && dev->pd) {
		ibv_dealloc_pd(dev->pd);
		dev->pd = NULL;
	}
	pthread_mutex_unlock(&dev_lock);
}

uint8_t
cma_device_link_layer(struct cma_device *dev, uint8_t port_num)
{
	(void)dev;
	if (port_num < 1 || port_num > num_ports)
		return IBV_LINK_LAYER_UNSPECIFIED;
	return link_layers[port_num - 1];
}

CMA_EXPORT struct ibv_context **
rdma_get_devices(int *num_devices)
{
	struct ibv_context **devs;
	int rc;

	if (num_devices)
		*num_devices = 0;
	devs = calloc(2, sizeof(*devs));
	if (!devs) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&dev_lock);
	rc = device_open();
	if (!rc)
		the_dev.refs++;
	pthread_mutex_unlock(&dev_lock);
	if (rc) {
		/* no fabric: as librdmacm with no RDMA device, NULL */
		free(devs);
		errno = rc;
		return NULL;
	}
	devs[0] = the_dev.verbs;
	if (num_devices)
		*num_devices = 1;
	return devs;
}

CMA_EXPORT void
rdma_free_devices(struct ibv_context **list)
{
	int i;

	if (!list)
		return;
	for (i = 0; list[i]; i++)
		if (list[i] == the_dev.verbs)
			cma_device_put(&the_dev);
	free(list);
}
