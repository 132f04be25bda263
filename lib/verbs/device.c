/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices and their attributes: ibv_get_device_list() lists the node the
 * process runs on (madpmd-run's $MADPMD_NODE, else the first node of the
 * run directory), named as the fabric names it ("hca1"); ports, GIDs and
 * P_Keys are asked of the daemon, as libibumad asks for umad_get_port().
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <endian.h>

#include "madpmd/page.h"
#include "verbs_priv.h"

#define VERBS_VENDOR_ID		0x1af4	/* a virtual device's */
#define VERBS_PART_ID		0x4d50	/* "MP" */

/* ---- the device list ------------------------------------------------------ */

VERBS_EXPORT struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	struct mpd_verbs_device *d;
	struct ibv_device **list;
	enum mpd_chan_lookup rc;

	if (num_devices)
		*num_devices = 0;
	list = calloc(2, sizeof(*list));
	d = calloc(1, sizeof(*d));
	if (!list || !d) {
		free(list);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	rc = mpd_chan_node_lookup(NULL, &d->node);
	if (rc != MPD_CHAN_NODE_FOUND) {
		/* no fabric: no device, as with no HCA in the machine */
		free(d);
		return list;
	}
	d->refs = 1;
	d->dev.node_type = IBV_NODE_CA;
	d->dev.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->dev.name, sizeof(d->dev.name), "%s", d->node.dev);
	/* as the kernel shows one HCA: what madpmd-run's private /dev and
	 * /sys have for it (madpmd-sysfs), which UCX looks for */
	snprintf(d->dev.dev_name, sizeof(d->dev.dev_name), "uverbs0");
	snprintf(d->dev.dev_path, sizeof(d->dev.dev_path),
		 "/sys/class/infiniband_verbs/uverbs0");
	snprintf(d->dev.ibdev_path, sizeof(d->dev.ibdev_path),
		 "/sys/class/infiniband/%.63s", d->node.dev);
	list[0] = &d->dev;
	if (num_devices)
		*num_devices = 1;
	return list;
}

VERBS_EXPORT void
ibv_free_device_list(struct ibv_device **list)
{
	unsigned int i;

	if (!list)
		return;
	for (i = 0; list[i]; i++)
		mpd_verbs_device_put((struct mpd_verbs_device *)list[i]);
	free(list);
}

void
mpd_verbs_device_put(struct mpd_verbs_device *d)
{
	if (__atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(d);
}

VERBS_EXPORT const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device ? device->name : NULL;
}

VERBS_EXPORT __be64
ibv_get_device_guid(struct ibv_device *device)
{
	struct mpd_verbs_device *d = (struct mpd_verbs_device *)device;

	return d ? htobe64(d->node.node_guid) : 0;
}

VERBS_EXPORT int
ibv_get_device_index(struct ibv_device *device)
{
	(void)device;
	return 0;	/* the one device a process sees */
}

/* ---- ports ---------------------------------------------------------------- */

/* A port's GIDs: the one of its GUID; on RoCE the IPv4-mapped one too */
static int
gid_tbl_len(uint32_t link_layer)
{
	return link_layer ? 2 : 1;
}

/* The port as it is now: from the HELLO that opens the context's session
 * of the port the first time, from a PORT_INFO request on it after. */
static int
ctx_port_info(struct mpd_verbs_ctx *c, unsigned int port_num,
	      struct mpd_chan_port_info *pi)
{
	unsigned int i = port_num - 1;
	struct mpd_chan_msg m;
	struct mpd_chan_session h;
	int rc = 0;

	if (port_num < 1 || port_num > c->vdev->node.num_ports)
		return EINVAL;
	pthread_mutex_lock(&c->ctl_lock);
	if (c->ctl_sock[i] < 0) {
		if (mpd_chan_hello(&c->vdev->node, (int)port_num, &h) < 0) {
			rc = EIO;
			goto out;
		}
		*pi = h.rep.port;
		mpd_v_port_seen(c, port_num, pi);
		c->ctl_sock[i] = h.sock;
		c->ctl_seq[i] = h.seq;
		/* the session's rings are for MADs: not ours to keep */
		h.sock = -1;
		mpd_chan_session_close(&h);
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.type = MPD_CHAN_PORT_INFO;
	if (mpd_chan_call(c->ctl_sock[i], &c->ctl_seq[i], &m, NULL, 0,
			   NULL) < 0 || m.status) {
		rc = EIO;
		goto out;
	}
	*pi = m.u.port;
	mpd_v_port_seen(c, port_num, pi);
out:
	pthread_mutex_unlock(&c->ctl_lock);
	return rc;
}

int
mpd_v_port_gids(struct ibv_context *ibctx, uint8_t port_num, bool *roce)
{
	struct mpd_verbs_ctx *c = mpd_verbs_ctx(ibctx);
	struct mpd_chan_port_info pi;
	uint8_t kind;

	if (port_num < 1 || port_num > c->vdev->node.num_ports)
		return 0;
	kind = __atomic_load_n(&c->port_kind[port_num - 1], __ATOMIC_RELAXED);
	/* the first look keeps it (mpd_v_port_seen()) */
	if (!kind) {
		if (ctx_port_info(c, port_num, &pi))
			return 0;
		kind = __atomic_load_n(&c->port_kind[port_num - 1],
				       __ATOMIC_RELAXED);
	}
	*roce = kind == 2;
	return gid_tbl_len(*roce);
}

int
mpd_v_port_info(struct ibv_context *c, uint8_t port_num,
		struct mpd_chan_port_info *pi)
{
	return ctx_port_info(mpd_verbs_ctx(c), port_num, pi);
}

static int
port_info(struct ibv_context *c, uint8_t port_num,
	  struct mpd_chan_port_info *pi)
{
	return mpd_v_port_info(c, port_num, pi);
}

static int
query_port(struct ibv_context *c, uint8_t port_num, struct ibv_port_attr *a,
	   size_t len)
{
	struct mpd_chan_port_info pi;
	struct ibv_port_attr out;
	int rc = port_info(c, port_num, &pi);

	if (rc)
		return rc;
	memset(&out, 0, sizeof(out));
	out.state = (enum ibv_port_state)pi.state;
	out.max_mtu = (enum ibv_mtu)pi.mtu_cap;
	out.active_mtu = (enum ibv_mtu)(pi.neighbor_mtu ? pi.neighbor_mtu :
					pi.mtu_cap);
	out.gid_tbl_len = gid_tbl_len(pi.link_layer);
	out.port_cap_flags = pi.capmask;
	out.max_msg_sz = 1u << 31;	/* IBA 9.4: 2^31 bytes */
	out.pkey_tbl_len = (uint16_t)pi.num_pkeys;
	out.lid = (uint16_t)pi.lid;
	out.sm_lid = (uint16_t)pi.sm_lid;
	out.lmc = (uint8_t)pi.lmc;
	/* the VLCap encoding, as the kernel fills it in */
	out.max_vl_num = pi.vl_cap;
	out.sm_sl = (uint8_t)pi.sm_sl;
	out.subnet_timeout = pi.subnet_timeout;
	/* ibv_port_attr takes PortInfo's encodings as they are */
	out.active_width = pi.width_active;
	out.active_speed = pi.speed_active;
	out.phys_state = (uint8_t)pi.phys_state;
	out.link_layer = pi.link_layer ? IBV_LINK_LAYER_ETHERNET :
					 IBV_LINK_LAYER_INFINIBAND;
	mpd_chan_no_sm_hint(c->device->name, &pi);
	/* the caller's struct may be older (shorter) than ours */
	memcpy(a, &out, len < sizeof(out) ? len : sizeof(out));
	return 0;
}

/* The entry point that inline ibv_query_port() falls back on when a
 * context has no query_port op; ours has one, old binaries call this. */
VERBS_EXPORT int
(ibv_query_port)(struct ibv_context *context, uint8_t port_num,
		 struct _compat_ibv_port_attr *port_attr)
{
	return query_port(context, port_num, (struct ibv_port_attr *)port_attr,
			  sizeof(struct ibv_port_attr));
}

static int
gid_of(struct ibv_context *c, uint8_t port_num, int index, union ibv_gid *gid,
       enum ibv_gid_type *type)
{
	struct mpd_chan_port_info pi;
	int rc = port_info(c, port_num, &pi);

	if (rc)
		return rc;
	if (index < 0 || index >= gid_tbl_len(pi.link_layer))
		return EINVAL;
	memset(gid, 0, sizeof(*gid));
	if (index == 0) {
		gid->global.subnet_prefix = htobe64(pi.gid_prefix);
		gid->global.interface_id = htobe64(pi.port_guid);
	} else {
		/* IPv4-mapped (RFC 4291 2.5.5.2), as RoCE v2 GIDs are */
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(gid->raw + 12, pi.ip4, 4);
	}
	if (type)
		*type = pi.link_layer ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_IB;
	return 0;
}

VERBS_EXPORT int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
	      union ibv_gid *gid)
{
	int rc = gid_of(context, port_num, index, gid, NULL);

	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

/* IBVERBS_PRIVATE_34, which ibv_devinfo imports. Its types are sysfs's
 * (driver.h's enum ibv_gid_type_sysfs: 0 "IB/RoCE v1", 1 "RoCE v2"),
 * not enum ibv_gid_type's. */
VERBS_EXPORT int
ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		   unsigned int index, int *type)
{
	enum ibv_gid_type t;
	union ibv_gid gid;
	int rc = gid_of(context, port_num, (int)index, &gid, &t);

	if (rc) {
		errno = rc;
		return -1;
	}
	*type = t == IBV_GID_TYPE_ROCE_V2 ? VERBS_GID_SYSFS_ROCE_V2 :
					    VERBS_GID_SYSFS_IB_ROCE_V1;
	return 0;
}

VERBS_EXPORT int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		  uint32_t gid_index, struct ibv_gid_entry *entry,
		  uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	enum ibv_gid_type type;
	int rc;

	if (flags || entry_size < sizeof(e) || port_num > 255 ||
	    gid_index > INT32_MAX)
		return EINVAL;
	memset(&e, 0, sizeof(e));
	rc = gid_of(context, (uint8_t)port_num, (int)gid_index, &e.gid, &type);
	if (rc)
		return rc == EINVAL ? ENODATA : rc;
	e.gid_index = gid_index;
	e.port_num = port_num;
	e.gid_type = type;
	memcpy(entry, &e, sizeof(e));
	return 0;
}

VERBS_EXPORT ssize_t
_ibv_query_gid_table(struct ibv_context *context,
		     struct ibv_gid_entry *entries, size_t max_entries,
		     uint32_t flags, size_t entry_size)
{
	struct mpd_verbs_device *d = mpd_verbs_ctx(context)->vdev;
	size_t n = 0;
	uint32_t port, i;

	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	for (port = 1; port <= d->node.num_ports; port++)
		for (i = 0; i < 2; i++) {
			struct ibv_gid_entry e;

			if (_ibv_query_gid_ex(context, port, i, &e, 0,
					      sizeof(e)))
				continue;
			if (n == max_entries)
				return -EINVAL;
			memcpy((char *)entries + n * entry_size, &e, sizeof(e));
			n++;
		}
	return (ssize_t)n;
}

VERBS_EXPORT int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
	       __be16 *pkey)
{
	struct mpd_chan_port_info pi;
	int rc = port_info(context, port_num, &pi);

	if (!rc && (index < 0 || (uint32_t)index >= pi.num_pkeys ||
		    index >= (int)(sizeof(pi.pkeys) / sizeof(pi.pkeys[0]))))
		rc = EINVAL;
	if (rc) {
		errno = rc;
		return -1;
	}
	*pkey = htobe16(pi.pkeys[index]);
	return 0;
}

VERBS_EXPORT int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	struct mpd_chan_port_info pi;
	unsigned int i;

	if (port_info(context, port_num, &pi))
		return -1;
	for (i = 0; i < pi.num_pkeys && i < 32; i++)
		if (pi.pkeys[i] == be16toh(pkey))
			return (int)i;
	return -1;
}

/* ---- the device ----------------------------------------------------------- */

VERBS_EXPORT int
ibv_query_device(struct ibv_context *context,
		 struct ibv_device_attr *device_attr)
{
	struct mpd_verbs_device *d = mpd_verbs_ctx(context)->vdev;
	struct mpd_chan_port_info pi;

	if (port_info(context, 1, &pi)) {
		errno = EIO;
		return EIO;
	}
	memset(device_attr, 0, sizeof(*device_attr));
	/* as umad_get_ca() and ibstat show it */
	snprintf(device_attr->fw_ver, sizeof(device_attr->fw_ver), "%u.%u.%u",
		 pi.fw_ver >> 24, (pi.fw_ver >> 16) & 0xff, pi.fw_ver & 0xffff);
	device_attr->node_guid = htobe64(pi.node_guid);
	device_attr->sys_image_guid = htobe64(pi.sys_guid);
	device_attr->vendor_id = VERBS_VENDOR_ID;
	device_attr->vendor_part_id = VERBS_PART_ID;
	device_attr->hw_ver = 1;
	/* MRs are mapped in whole 4 KiB pages (madpmd/verbs.h) */
	device_attr->page_size_cap = mpd_page_size();
	/* what the daemon enforces (madpmd/verbs.h): objects of each kind
	 * are a process's share of the port, all its contexts together */
	device_attr->max_mr_size = MPD_V_MAX_MR_SIZE;
	device_attr->max_qp = MPD_V_PROC_QPS;
	device_attr->max_qp_wr = MPD_V_MAX_QP_WR;
	device_attr->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN |
		IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID |
		IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_MEM_WINDOW |
		IBV_DEVICE_MEM_WINDOW_TYPE_2B;
	device_attr->max_sge = MPD_V_MAX_SGE;
	device_attr->max_sge_rd = MPD_V_MAX_SGE;
	device_attr->max_cq = MPD_V_PROC_CQS;
	device_attr->max_cqe = MPD_V_MAX_CQE - 1;
	device_attr->max_mr = MPD_V_PROC_MRS;
	/* windows take keys of the same share as MRs */
	device_attr->max_mw = MPD_V_PROC_MRS;
	device_attr->max_pd = MPD_V_PROC_PDS;
	device_attr->max_qp_rd_atom = MPD_V_MAX_RD_ATOMIC;
	device_attr->max_qp_init_rd_atom = MPD_V_MAX_RD_ATOMIC;
	device_attr->max_res_rd_atom = MPD_V_MAX_RD_ATOMIC * MPD_V_PROC_QPS;
	/* the daemon's lcore runs every atomic of the node: one order */
	device_attr->atomic_cap = IBV_ATOMIC_HCA;
	device_attr->max_ah = MPD_V_MAX_OBJECTS;
	device_attr->max_srq = MPD_V_PROC_SRQS;
	device_attr->max_srq_wr = MPD_V_MAX_QP_WR;
	device_attr->max_srq_sge = MPD_V_MAX_SGE;
	device_attr->max_pkeys = (uint16_t)pi.num_pkeys;
	/* the port's group table (pmd/qp/mcast.c) */
	device_attr->max_mcast_grp = MPD_V_MAX_MCAST_GRP;
	device_attr->max_mcast_qp_attach = MPD_V_MAX_MCAST_QP_ATTACH;
	device_attr->max_total_mcast_qp_attach = MPD_V_MAX_MCAST_GRP *
						 MPD_V_MAX_MCAST_QP_ATTACH;
	device_attr->local_ca_ack_delay = 15;
	device_attr->phys_port_cnt = (uint8_t)d->node.num_ports;
	return 0;
}

static int
query_device_ex(struct ibv_context *context,
		const struct ibv_query_device_ex_input *input,
		struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex out;
	int rc;

	if (input && input->comp_mask)
		return EINVAL;
	if (attr_size < sizeof(out.orig_attr))
		return EINVAL;
	memset(&out, 0, sizeof(out));
	rc = ibv_query_device(context, &out.orig_attr);
	if (rc)
		return rc;
	/* Nothing else to report, honestly: no ODP, time stamps, TSO (so
	 * pyverbs never asks for IBV_QP_INIT_ATTR_MAX_TSO_HEADER), RSS,
	 * WQs, packet pacing, raw packet, tag matching, CQ moderation or
	 * device memory */
	out.device_cap_flags_ex = out.orig_attr.device_cap_flags;
	out.phys_port_cnt_ex = out.orig_attr.phys_port_cnt;
	memcpy(attr, &out, attr_size < sizeof(out) ? attr_size : sizeof(out));
	return 0;
}

static void
ctx_free(struct mpd_verbs_ctx *c)
{
	unsigned int i;

	for (i = 0; c->ctl_sock && i < c->vdev->node.num_ports; i++)
		if (c->ctl_sock[i] >= 0)
			close(c->ctl_sock[i]);
	mpd_v_sess_close(c);
	mpd_v_ranges_free(c);
	free(c->ctl_sock);
	free(c->ctl_seq);
	free(c->port_kind);
	if (c->vctx.context.async_fd >= 0)
		close(c->vctx.context.async_fd);
	if (c->wake.efd >= 0)
		close(c->wake.efd);
	if (c->wake.efd_w >= 0)
		close(c->wake.efd_w);
	pthread_mutex_destroy(&c->ctl_lock);
	pthread_mutex_destroy(&c->rx_lock);
	pthread_mutex_destroy(&c->obj_lock);
	pthread_mutex_destroy(&c->mr_lock);
	pthread_mutex_destroy(&c->vctx.context.mutex);
	if (c->vdev)
		mpd_verbs_device_put(c->vdev);
	free(c);
}

VERBS_EXPORT struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct mpd_verbs_device *d = (struct mpd_verbs_device *)device;
	struct ibv_context_ops *ops;
	struct mpd_verbs_ctx *c;
	struct mpd_chan_msg m;
	unsigned int i, n;
	int rc;

	if (!d) {
		errno = EINVAL;
		return NULL;
	}
	n = d->node.num_ports;
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->vdev = d;
	__atomic_add_fetch(&d->refs, 1, __ATOMIC_RELAXED);
	c->vctx.context.async_fd = -1;
	c->wake.efd = c->wake.efd_w = -1;
	c->db.fd = c->db_rd = -1;
	pthread_mutex_init(&c->ctl_lock, NULL);
	pthread_mutex_init(&c->rx_lock, NULL);
	pthread_mutex_init(&c->obj_lock, NULL);
	pthread_mutex_init(&c->mr_lock, NULL);
	pthread_mutex_init(&c->vctx.context.mutex, NULL);
	c->ctl_sock = malloc(n * sizeof(*c->ctl_sock));
	c->ctl_seq = calloc(n, sizeof(*c->ctl_seq));
	c->port_kind = calloc(n, sizeof(*c->port_kind));
	if (!c->ctl_sock || !c->ctl_seq || !c->port_kind) {
		ctx_free(c);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		c->ctl_sock[i] = -1;
	if (n > 1) {
		c->prx = calloc(n - 1, sizeof(*c->prx));
		if (!c->prx) {
			ctx_free(c);
			errno = ENOMEM;
			return NULL;
		}
		for (i = 0; i + 1 < n; i++)
			c->prx[i].wake.efd = c->prx[i].wake.efd_w = -1;
	}
	/* the daemon must be there now, not at the first query: port 1's
	 * session, the device's, opens here */
	rc = mpd_v_sess_open(c);
	if (rc) {
		ctx_free(c);
		errno = rc == EPROTO ? EPROTO : ENODEV;
		return NULL;
	}
	/* a context from now: the port's events reach its async fd */
	memset(&m, 0, sizeof(m));
	m.type = MPD_V_OPEN_CONTEXT;
	rc = mpd_v_call(c, &m, NULL);
	/* and every other port's, on a session of that port */
	for (i = 2; !rc && i <= n; i++)
		rc = mpd_v_sess_open_events(c, i);
	if (rc) {
		ctx_free(c);
		errno = rc == EPROTO ? EPROTO : rc;
		return NULL;
	}
	c->vctx.sz = sizeof(c->vctx);
	c->vctx.query_port = query_port;
	c->vctx.query_device_ex = query_device_ex;
	c->vctx.context.device = device;
	c->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	/* the socket the library sends the context's commands on, as the
	 * kernel's is its uverbs file: an fd of its own for as long as the
	 * context is open (ibv_import_device() on a copy of it says
	 * EOPNOTSUPP: objects are not shared between contexts) */
	c->vctx.context.cmd_fd = c->ctl_sock[0];
	c->vctx.context.num_comp_vectors = 1;
	c->vctx.create_cq_ex = mpd_v_create_cq_ex;
	c->vctx.create_qp_ex = mpd_v_create_qp_ex;
	/* what inline ibv_poll_cq(), ibv_post_send() and friends call */
	ops = &c->vctx.context.ops;
	ops->poll_cq = mpd_v_poll_cq;
	ops->req_notify_cq = mpd_v_req_notify_cq;
	ops->post_send = mpd_v_post_send_op;
	ops->post_recv = mpd_v_post_recv_op;
	ops->post_srq_recv = mpd_v_post_srq_recv_op;
	ops->alloc_mw = mpd_v_alloc_mw;
	ops->dealloc_mw = mpd_v_dealloc_mw;
	ops->bind_mw = mpd_v_bind_mw;
	return &c->vctx.context;
}

VERBS_EXPORT int
ibv_close_device(struct ibv_context *context)
{
	if (context)
		ctx_free(mpd_verbs_ctx(context));
	return 0;
}

/* ---- sysfs (ibv_devinfo reads the board id) --------------------------------- */

VERBS_EXPORT int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	if (n <= 0)
		return -1;
	if ((size_t)n < size)
		buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return (int)n;
}

VERBS_EXPORT int
ibv_get_sysfs_path(char *buf, size_t size)
{
	return snprintf(buf, size, "%s", "/sys") >= (int)size ? -1 : 0;
}
