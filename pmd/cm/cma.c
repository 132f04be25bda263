/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm ids (cma.h) on the port's IB CM, with the kernel cma.c's
 * semantics as ucma.c shows them to librdmacm. Ids are slots of one
 * table per port, named by handles with a generation, and checked
 * against their owner on every request. Every event an owner hears
 * passes through emit(), the one place a recorder hooks into.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <endian.h>
#include <infiniband/verbs.h>

#include "madpmd/mad.h"
#include "madpmd/rand.h"
#include "cma.h"

#define GEN_SHIFT	14
_Static_assert((1u << GEN_SHIFT) == HCA_CMA_MAX_IDS, "handle slot bits");
#define AF_INET_	2
#define AF_INET6_	10
#define PORT_LO		32768	/* inet_get_local_port_range() */
#define PORT_HI		60999
#define SIDR_TIMEOUT_MS	4096	/* cma.c: 1 << (CMA_CM_RESPONSE_TIMEOUT - 8) */

int
hca_cma_init(struct hca_cma *cma, struct hca_port *port,
	     struct hca_ibcm *ibcm, const struct hca_cma_io *io, void *io_ctx,
	     uint64_t seed)
{
	memset(cma, 0, sizeof(*cma));
	cma->port = port;
	cma->ibcm = ibcm;
	cma->io = io;
	cma->io_ctx = io_ctx;
	cma->rnd = seed | 1;
	cma->next_gen = (uint32_t)mpd_xorshift64(&cma->rnd);
	TAILQ_INIT(&cma->free);
	/* untouched ids cost no memory: handed out from the lowest, then
	 * the ones given back (as ibcm.c's connections) */
	cma->ids = calloc(HCA_CMA_MAX_IDS, sizeof(*cma->ids));
	if (!cma->ids || hca_cma_mc_init(cma) != 0) {
		hca_cma_fini(cma);
		return ENOMEM;
	}
	return 0;
}

void
hca_cma_fini(struct hca_cma *cma)
{
	free(cma->ids);
	cma->ids = NULL;
	hca_cma_mc_fini(cma);
}

/* ---- ids ---------------------------------------------------------------- */

static struct hca_cma_id *
id_by_handle(struct hca_cma *cma, uint32_t h)
{
	struct hca_cma_id *id;

	if (!cma->ids)
		return NULL;
	id = &cma->ids[h & (HCA_CMA_MAX_IDS - 1)];
	return id->used && id->handle == h ? id : NULL;
}

const struct hca_cma_id *
hca_cma_id_of(struct hca_cma *cma, uint32_t handle)
{
	return id_by_handle(cma, handle);
}

/* The id handle names, if o holds it. */
static struct hca_cma_id *
id_of(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h)
{
	struct hca_cma_id *id = id_by_handle(cma, h);

	return id && id->owner == o ? id : NULL;
}

static struct hca_cma_id *
id_alloc(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t ps,
	 uint32_t qp_type)
{
	struct hca_cma_id *id;
	uint32_t slot, gen;

	if (o->nids >= MPD_CM_SESSION_IDS)
		return NULL;
	if (cma->carved < HCA_CMA_MAX_IDS) {
		id = &cma->ids[cma->carved++];
	} else {
		id = TAILQ_FIRST(&cma->free);
		if (!id)
			return NULL;
		TAILQ_REMOVE(&cma->free, id, next);
	}
	slot = (uint32_t)(id - cma->ids);
	memset(id, 0, sizeof(*id));
	do
		gen = cma->next_gen++ & ((1u << (32 - GEN_SHIFT)) - 1);
	while (gen == 0);
	id->handle = gen << GEN_SHIFT | slot;
	id->used = true;
	id->owner = o;
	id->ps = ps;
	id->qp_type = qp_type;
	id->pkey = 0xffff;
	o->nids++;
	cma->nused++;
	return id;
}

static void
id_free(struct hca_cma *cma, struct hca_cma_id *id)
{
	id->owner->nids--;
	id->used = false;
	id->handle = 0;
	TAILQ_INSERT_TAIL(&cma->free, id, next);
	cma->nused--;
}

static uint64_t
service_id(uint32_t ps, uint16_t port)
{
	return (uint64_t)ps << 16 | port;
}

/* The one place every event to an owner passes: true when it took it */
static bool
emit(struct hca_cma *cma, struct hca_cma_id *id, struct mpd_cm_event_rec *e)
{
	struct hca_cma_owner *o = id->owner;

	if (!o || o->dead)
		return false;
	e->id = id->handle;
	cma->events++;
	if (!o->ops->event(o, e)) {
		cma->events_lost++;
		return false;
	}
	id->events_reported++;
	if (cma->io->observe)
		cma->io->observe(cma->io_ctx, id, e);
	return true;
}

static void
emit_simple(struct hca_cma *cma, struct hca_cma_id *id, uint32_t event,
	    int32_t status)
{
	struct mpd_cm_event_rec e;

	memset(&e, 0, sizeof(e));
	e.event = event;
	e.status = status;
	emit(cma, id, &e);
}

/* A listen's request leaves its backlog (accepted, rejected, gone). */
static void
backlog_leave(struct hca_cma *cma, struct hca_cma_id *id)
{
	struct hca_cma_id *l;

	if (!id->in_backlog)
		return;
	id->in_backlog = false;
	l = id_by_handle(cma, id->parent);
	if (l && l->pending)
		l->pending--;
}

static bool
port_taken(const struct hca_cma *cma, const struct hca_cma_id *self,
	   uint32_t ps, uint16_t port, bool listen)
{
	uint32_t i;

	for (i = 0; i < HCA_CMA_MAX_IDS; i++) {
		const struct hca_cma_id *id = &cma->ids[i];

		if (!id->used || id == self || !id->bound || id->ps != ps ||
		    id->src.port != port)
			continue;
		/* SO_REUSEADDR's rule: shared unless one listens */
		if (!(self && self->reuseaddr && id->reuseaddr) || listen ||
		    id->state == HCA_CMA_LISTEN)
			return true;
	}
	return false;
}

/* A port for the id: its own, or an ephemeral one. */
static int
bind_port(struct hca_cma *cma, struct hca_cma_id *id, uint16_t port)
{
	uint32_t i, span = PORT_HI - PORT_LO + 1;

	if (port) {
		if (port_taken(cma, id, id->ps, port, false))
			return EADDRINUSE;
		id->src.port = port;
		id->bound = true;
		return 0;
	}
	port = (uint16_t)(PORT_LO + mpd_xorshift64(&cma->rnd) % span);
	for (i = 0; i < span; i++) {
		if (!port_taken(cma, NULL, id->ps, port, false)) {
			id->src.port = port;
			id->bound = true;
			return 0;
		}
		port = port == PORT_HI ? PORT_LO : (uint16_t)(port + 1);
	}
	return EADDRNOTAVAIL;
}

/* Our address for an id whose source is the wildcard: the port's */
static void
own_addr(const struct hca_port *p, struct mpd_cm_addr *a, uint16_t family)
{
	a->family = family;
	memset(a->addr, 0, sizeof(a->addr));
	if (family == AF_INET_)
		memcpy(a->addr, p->ip4, 4);
	else
		hca_gid_from_ip4(p->ip4, a->addr);
}

static void
own_gid(const struct hca_port *p, uint8_t gid[16])
{
	struct hca_neigh self;

	hca_port_neigh(p, &self);
	hca_cma_gid(p, &self, gid);
}

/* ---- requests ------------------------------------------------------------ */

int
hca_cma_create(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t ps,
	       uint32_t qp_type, uint32_t *handle)
{
	struct hca_cma_id *id;

	/* ucma_get_qp_type(): TCP is connected, UDP and IPoIB datagrams */
	if (!((ps == HCA_CMA_PS_TCP && (qp_type == IBV_QPT_RC ||
					qp_type == IBV_QPT_UC)) ||
	      ((ps == HCA_CMA_PS_UDP || ps == HCA_CMA_PS_IPOIB) &&
	       qp_type == IBV_QPT_UD)))
		return EINVAL;
	id = id_alloc(cma, o, ps, qp_type);
	if (!id)
		return ENOMEM;
	if (ps == HCA_CMA_PS_UDP)
		id->qkey = HCA_CMA_UDP_QKEY;
	*handle = id->handle;
	return 0;
}

static void mc_leave(struct hca_cma *cma, struct hca_cma_id *id,
		     struct hca_cma_mc *mc);

static void
id_destroy(struct hca_cma *cma, struct hca_cma_id *id, uint64_t now_ns)
{
	struct hca_cma_mc *mc;

	/* cma.c's cma_leave_mc_groups(): the id's joins go with it */
	while ((mc = hca_cma_mc_next(cma, id->handle, NULL, NULL)))
		mc_leave(cma, id, mc);
	if (id->state == HCA_CMA_LISTEN)
		hca_ibcm_unlisten(cma->ibcm, service_id(id->ps, id->src.port));
	backlog_leave(cma, id);
	if (id->conn) {
		/* DREQ for a connection, REJ for a request unanswered */
		hca_ibcm_destroy(cma->ibcm, id->conn, now_ns);
		id->conn = NULL;
	}
	id_free(cma, id);
}

int
hca_cma_destroy(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
		uint64_t now_ns, uint32_t *events)
{
	struct hca_cma_id *id = id_of(cma, o, h);

	if (!id)
		return EINVAL;
	*events = id->events_reported;
	id_destroy(cma, id, now_ns);
	return 0;
}

void
hca_cma_owner_gone(struct hca_cma *cma, struct hca_cma_owner *o,
		   uint64_t now_ns)
{
	uint32_t i;

	o->dead = true;
	for (i = 0; cma->ids && o->nids && i < HCA_CMA_MAX_IDS; i++)
		if (cma->ids[i].used && cma->ids[i].owner == o)
			id_destroy(cma, &cma->ids[i], now_ns);
}

static int
addr_check(const struct mpd_cm_addr *a)
{
	if (a->family != AF_INET_ && a->family != AF_INET6_)
		return EAFNOSUPPORT;
	return 0;
}

int
hca_cma_bind(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
	     const struct mpd_cm_addr *a)
{
	struct hca_cma_id *id = id_of(cma, o, h);
	int rc;

	if (!id || id->state != HCA_CMA_IDLE)
		return EINVAL;
	rc = addr_check(a);
	if (rc)
		return rc;
	if (!hca_cma_addr_local(cma->port, a))
		return EADDRNOTAVAIL;
	rc = bind_port(cma, id, a->port);
	if (rc)
		return rc;
	id->src.family = a->family;
	id->src.scope_id = a->scope_id;
	memcpy(id->src.addr, a->addr, sizeof(id->src.addr));
	/* a specific address binds the id to this port's device; loopback
	 * is no more specific than the wildcard (cma.c cma_any_addr()) */
	id->has_port = !hca_cma_addr_any(a);
	if (id->has_port)
		own_gid(cma->port, id->sgid);
	id->state = HCA_CMA_ADDR_BOUND;
	return 0;
}

int
hca_cma_resolve_addr(struct hca_cma *cma, struct hca_cma_owner *o,
		     const struct mpd_cm_resolve_addr_req *r)
{
	struct hca_cma_id *id = id_of(cma, o, r->id);
	const struct hca_port *p = cma->port;
	struct hca_neigh n;
	int rc;

	if (!id || (id->state != HCA_CMA_IDLE &&
		    id->state != HCA_CMA_ADDR_BOUND))
		return EINVAL;
	rc = addr_check(&r->dst);
	if (rc || (r->src.family && (rc = addr_check(&r->src))))
		return rc;
	if (id->state == HCA_CMA_IDLE) {
		rc = bind_port(cma, id, r->src.family ? r->src.port : 0);
		if (rc)
			return rc;
		if (r->src.family) {
			uint16_t port = id->src.port;

			id->src = r->src;
			id->src.port = port;
		}
		id->state = HCA_CMA_ADDR_BOUND;
	}
	id->dst = r->dst;
	if ((r->src.family && !hca_cma_addr_local(p, &r->src)) ||
	    (id->has_port && !hca_cma_addr_local(p, &id->src))) {
		emit_simple(cma, id, HCA_CMA_EV_ADDR_ERROR, -ENODEV);
		return 0;
	}
	if (!hca_cma_addr_resolve(p, &r->dst, &n)) {
		emit_simple(cma, id, HCA_CMA_EV_ADDR_ERROR, -EHOSTUNREACH);
		return 0;
	}
	if (!id->src.family || hca_cma_addr_any(&id->src)) {
		uint16_t port = id->src.port;

		own_addr(p, &id->src, r->dst.family);
		id->src.port = port;
	}
	id->has_port = true;
	own_gid(p, id->sgid);
	hca_cma_gid(p, &n, id->dgid);
	id->pkey = p->pkeys[0] ? p->pkeys[0] : 0xffff;
	id->state = HCA_CMA_ADDR_RESOLVED;
	emit_simple(cma, id, HCA_CMA_EV_ADDR_RESOLVED, 0);
	return 0;
}

int
hca_cma_resolve_route(struct hca_cma *cma, struct hca_cma_owner *o,
		      const struct mpd_cm_resolve_route_req *r)
{
	struct hca_cma_id *id = id_of(cma, o, r->id);
	const struct hca_port *p = cma->port;
	struct hca_mad_desc d;
	uint8_t mad[MPD_MAD_LEN];

	if (!id || id->state != HCA_CMA_ADDR_RESOLVED)
		return EINVAL;
	if (p->link != MPD_LINK_IB) {
		hca_cma_roce_path(p, id->sgid, id->dgid, id->tos, &id->path);
		id->num_paths = 1;
		id->state = HCA_CMA_ROUTE_RESOLVED;
		emit_simple(cma, id, HCA_CMA_EV_ROUTE_RESOLVED, 0);
		return 0;
	}
	/* no SM to ask: say so now rather than time out */
	if (!p->sm_lid || p->port_state != HCA_PORT_ACTIVE)
		return ENETUNREACH;
	hca_cma_path_query(p, id->sgid, id->dgid, id->pkey, id->handle, mad,
			   &d);
	d.agent_id = cma->sa_agent;
	d.timeout_ms = r->timeout_ms ? r->timeout_ms : 2000;
	d.retries = 0;
	id->state = HCA_CMA_ROUTE_QUERY;
	cma->io->sa_send(cma->io_ctx, &d, mad);
	return 0;
}

void
hca_cma_sa_input(struct hca_cma *cma, const struct hca_mad_desc *d,
		 const uint8_t *mad, uint32_t len)
{
	struct hca_cma_id *id;
	int rc;

	if (len < MPD_MAD_HDR_LEN)
		return;
	/* the query's low TID bits name the id; a stale one names none */
	id = id_by_handle(cma, (uint32_t)mpd_mad_tid(mad));
	if (!id || id->state != HCA_CMA_ROUTE_QUERY)
		return;
	if (d->status) {
		id->state = HCA_CMA_ADDR_RESOLVED;
		emit_simple(cma, id, HCA_CMA_EV_ROUTE_ERROR,
			    -(int32_t)(d->status == ETIMEDOUT ? ETIMEDOUT :
				       d->status));
		return;
	}
	rc = hca_cma_path_answer(mad, len, &id->path);
	if (rc) {
		id->state = HCA_CMA_ADDR_RESOLVED;
		emit_simple(cma, id, HCA_CMA_EV_ROUTE_ERROR, -rc);
		return;
	}
	id->num_paths = 1;
	id->state = HCA_CMA_ROUTE_RESOLVED;
	emit_simple(cma, id, HCA_CMA_EV_ROUTE_RESOLVED, 0);
}

int
hca_cma_query(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
	      struct mpd_cm_id_info *info)
{
	struct hca_cma_id *id = id_of(cma, o, h);

	if (!id)
		return EINVAL;
	memset(info, 0, sizeof(*info));
	info->src = id->src;
	info->dst = id->dst;
	memcpy(info->sgid, id->sgid, 16);
	memcpy(info->dgid, id->dgid, 16);
	info->pkey = id->pkey;
	info->port_num = id->has_port ? cma->port->port_num : 0;
	info->num_paths = id->num_paths;
	info->qp_num = id->qp_num;
	info->path = id->path;
	return 0;
}

int
hca_cma_listen(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
	       uint32_t backlog)
{
	struct hca_cma_id *id = id_of(cma, o, h);
	int rc;

	if (!id)
		return EINVAL;
	if (id->state == HCA_CMA_LISTEN) {
		/* cma.c: a second listen changes the backlog */
		id->backlog = backlog && backlog < MPD_CM_BACKLOG_MAX ?
			      backlog : MPD_CM_BACKLOG_MAX;
		return 0;
	}
	if (id->state == HCA_CMA_IDLE) {
		/* rdma_listen() on an unbound id binds it to any address */
		rc = bind_port(cma, id, 0);
		if (rc)
			return rc;
		id->src.family = AF_INET_;
		id->state = HCA_CMA_ADDR_BOUND;
	}
	if (id->state != HCA_CMA_ADDR_BOUND)
		return EINVAL;
	if (port_taken(cma, id, id->ps, id->src.port, true))
		return EADDRINUSE;
	rc = hca_ibcm_listen(cma->ibcm, service_id(id->ps, id->src.port), id);
	if (rc)
		return rc;
	id->backlog = backlog && backlog < MPD_CM_BACKLOG_MAX ?
		      backlog : MPD_CM_BACKLOG_MAX;
	id->state = HCA_CMA_LISTEN;
	return 0;
}

/* The CM's address of the peer, from the id's path (IB: LID, and a GRH
 * off the subnet; RoCEv2: always the GRH) */
static void
cm_addr(const struct hca_cma *cma, const struct hca_cma_id *id,
	struct hca_mad_desc *d)
{
	const struct mpd_cm_path_rec *pr = &id->path;

	memset(d, 0, sizeof(*d));
	d->qpn = htobe32(1);
	d->qkey = htobe32(MPD_QP1_QKEY);
	d->lid = htobe16(pr->dlid);
	d->sl = pr->sl;
	d->pkey_index = hca_port_pkey_index(cma->port, id->pkey);
	d->length = MPD_MAD_LEN;
	if (cma->port->link != MPD_LINK_IB || pr->hop_limit > 1) {
		d->grh_present = 1;
		d->hop_limit = pr->hop_limit;
		d->traffic_class = pr->traffic_class;
		d->flow_label = htobe32(pr->flow_label);
		memcpy(d->gid, pr->dgid, 16);
	}
}

/* cma.c's cma_format_hdr(): version 0, IP version, our port, addresses */
static void
cma_hdr(const struct hca_cma_id *id, uint8_t *h)
{
	memset(h, 0, MPD_CM_HDR_LEN);
	h[1] = (uint8_t)((id->dst.family == AF_INET_ ? 4 : 6) << 4);
	mpd_put_be16(h + 2, id->src.port);
	if (id->dst.family == AF_INET_) {
		memcpy(h + 16, id->src.addr, 4);
		memcpy(h + 32, id->dst.addr, 4);
	} else {
		memcpy(h + 4, id->src.addr, 16);
		memcpy(h + 20, id->dst.addr, 16);
	}
}

int
hca_cma_connect(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
		const struct mpd_cm_conn_param *p, uint64_t now_ns)
{
	struct hca_cma_id *id = id_of(cma, o, h);
	struct hca_ibcm_req_param q;
	struct hca_mad_desc d;
	uint8_t pdata[MPD_CM_SIDR_REQ_PDATA_LEN];
	int rc;

	if (!id || id->state != HCA_CMA_ROUTE_RESOLVED || id->conn)
		return EINVAL;
	cm_addr(cma, id, &d);
	cma_hdr(id, pdata);
	if (id->qp_type == IBV_QPT_UD) {
		if (p->private_data_len >
		    MPD_CM_SIDR_REQ_PDATA_LEN - MPD_CM_HDR_LEN)
			return EINVAL;
		memcpy(pdata + MPD_CM_HDR_LEN, p->private_data,
		       p->private_data_len);
		rc = hca_ibcm_send_sidr_req(cma->ibcm, id, &d,
					    service_id(id->ps, id->dst.port),
					    id->pkey, pdata,
					    (uint8_t)(MPD_CM_HDR_LEN +
						      p->private_data_len),
					    SIDR_TIMEOUT_MS,
					    HCA_CMA_MAX_RETRIES, now_ns,
					    &id->conn);
		if (rc)
			return rc;
		id->state = HCA_CMA_CONNECT;
		return 0;
	}
	if (p->private_data_len > MPD_CM_REQ_PDATA_LEN - MPD_CM_HDR_LEN ||
	    p->qp_num > 0xffffff)
		return EINVAL;
	memcpy(pdata + MPD_CM_HDR_LEN, p->private_data, p->private_data_len);
	memset(&q, 0, sizeof(q));
	q.service_id = service_id(id->ps, id->dst.port);
	q.qpn = p->qp_num;
	q.starting_psn = hca_ibcm_psn(cma->ibcm);
	q.transport = id->qp_type == IBV_QPT_UC ? MPD_CM_TRANSPORT_UC :
						  MPD_CM_TRANSPORT_RC;
	q.resp_resources = p->responder_resources;
	q.initiator_depth = p->initiator_depth;
	q.flow_control = p->flow_control;
	q.retry_count = p->retry_count;
	q.rnr_retry_count = p->rnr_retry_count;
	q.srq = p->srq;
	q.max_cm_retries = HCA_CMA_MAX_RETRIES;
	q.local_cm_resp_timeout = HCA_CMA_RESP_TIMEOUT;
	q.remote_cm_resp_timeout = HCA_CMA_RESP_TIMEOUT;
	q.pkey = id->pkey;
	q.path_mtu = id->path.mtu;
	q.packet_life_time = id->path.packet_life_time;
	/* cm.c's cm_format_req(): LIDs within the subnet, else permissive */
	q.primary.local_lid = id->path.slid;
	q.primary.remote_lid = id->path.dlid;
	memcpy(q.primary.local_gid, id->path.sgid, 16);
	memcpy(q.primary.remote_gid, id->path.dgid, 16);
	q.primary.flow_label = id->path.flow_label;
	q.primary.packet_rate = id->path.rate;
	q.primary.tclass = id->path.traffic_class;
	q.primary.hop_limit = id->path.hop_limit;
	q.primary.sl = id->path.sl;
	q.primary.subnet_local = cma->port->link == MPD_LINK_IB &&
				 id->path.hop_limit <= 1;
	q.pdata = pdata;
	q.pdata_len = (uint8_t)(MPD_CM_HDR_LEN + p->private_data_len);
	rc = hca_ibcm_send_req(cma->ibcm, id, &d, &q, now_ns, &id->conn);
	if (rc)
		return rc;
	id->qp_num = p->qp_num;
	id->state = HCA_CMA_CONNECT;
	return 0;
}

int
hca_cma_accept(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
	       const struct mpd_cm_conn_param *p, uint64_t now_ns)
{
	struct hca_cma_id *id = id_of(cma, o, h);
	struct hca_ibcm_rep_param r;
	int rc;

	if (!id || !id->conn || id->state != HCA_CMA_CONNECT)
		return EINVAL;
	if (id->qp_type == IBV_QPT_UD) {
		if (p->private_data_len > MPD_CM_SIDR_REP_PDATA_LEN)
			return EINVAL;
		/* cma_set_qkey(): the id's, unless the accept names one */
		if (p->qkey)
			id->qkey = p->qkey;
		rc = hca_ibcm_send_sidr_rep(cma->ibcm, id->conn,
					    MPD_CM_SIDR_OK, p->qp_num,
					    id->qkey, p->private_data,
					    p->private_data_len);
		if (rc)
			return rc;
		id->qp_num = p->qp_num;
		backlog_leave(cma, id);
		return 0;
	}
	if (p->private_data_len > MPD_CM_REP_PDATA_LEN || p->qp_num > 0xffffff)
		return EINVAL;
	memset(&r, 0, sizeof(r));
	r.qpn = p->qp_num;
	r.resp_resources = p->responder_resources;
	r.initiator_depth = p->initiator_depth;
	r.flow_control = p->flow_control;
	r.rnr_retry_count = p->rnr_retry_count;
	r.srq = p->srq;
	r.pdata = p->private_data;
	r.pdata_len = p->private_data_len;
	rc = hca_ibcm_send_rep(cma->ibcm, id->conn, &r, now_ns);
	if (rc)
		return rc;
	id->qp_num = p->qp_num;
	backlog_leave(cma, id);
	return 0;
}

int
hca_cma_reject(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
	       const uint8_t *pdata, uint8_t len, uint64_t now_ns)
{
	struct hca_cma_id *id = id_of(cma, o, h);
	int rc;

	if (!id || !id->conn)
		return EINVAL;
	if (id->qp_type == IBV_QPT_UD) {
		if (len > MPD_CM_SIDR_REP_PDATA_LEN)
			return EINVAL;
		rc = hca_ibcm_send_sidr_rep(cma->ibcm, id->conn,
					    MPD_CM_SIDR_REJECT, 0, 0, pdata,
					    len);
	} else {
		rc = hca_ibcm_send_rej(cma->ibcm, id->conn,
				       HCA_IBCM_REJ_CONSUMER, pdata, len,
				       now_ns);
	}
	if (!rc)
		backlog_leave(cma, id);
	return rc;
}

int
hca_cma_disconnect(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
		   uint64_t now_ns)
{
	struct hca_cma_id *id = id_of(cma, o, h);

	if (!id || !id->conn || id->qp_type == IBV_QPT_UD)
		return EINVAL;
	/* rdma_disconnect(): initiate, or answer the peer's DREQ */
	if (hca_ibcm_send_dreq(cma->ibcm, id->conn, NULL, 0, now_ns) != 0)
		hca_ibcm_send_drep(cma->ibcm, id->conn, NULL, 0, now_ns);
	return 0;
}

int
hca_cma_establish(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h)
{
	struct hca_cma_id *id = id_of(cma, o, h);

	if (!id || !id->conn || id->state != HCA_CMA_CONNECT)
		return EINVAL;
	/* no event: librdmacm reports ESTABLISHED itself, as over ucma */
	return hca_ibcm_send_rtu(cma->ibcm, id->conn, NULL, 0);
}

int
hca_cma_notify(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
	       uint32_t event)
{
	struct hca_cma_id *id = id_of(cma, o, h);

	if (!id || !id->conn || id->qp_type == IBV_QPT_UD)
		return EINVAL;
	/* ib_cm_notify(): COMM_EST establishes; path migration has no
	 * alternate path to move to here; anything else is EINVAL */
	if (event == IBV_EVENT_COMM_EST)
		return hca_ibcm_establish(cma->ibcm, id->conn);
	if (event == IBV_EVENT_PATH_MIG)
		return id->conn->state == HCA_IBCM_ESTABLISHED ? 0 : EINVAL;
	return EINVAL;
}

int
hca_cma_set_option(struct hca_cma *cma, struct hca_cma_owner *o,
		   const struct mpd_cm_option_req *r)
{
	struct hca_cma_id *id = id_of(cma, o, r->id);

	if (!id)
		return EINVAL;
	if (r->level == HCA_CMA_OPT_IB && r->optname == HCA_CMA_OPT_IB_PATH)
		return ENOSYS;
	if (r->level != HCA_CMA_OPT_ID)
		return EINVAL;
	switch (r->optname) {
	case HCA_CMA_OPT_ID_TOS:
		if (r->value > 0xff)
			return EINVAL;
		id->tos = (uint8_t)r->value;
		id->tos_set = true;
		return 0;
	case HCA_CMA_OPT_ID_REUSEADDR:
		/* rdma_set_reuseaddr(): not on a listen, else before bind */
		if ((r->value && id->state != HCA_CMA_LISTEN) ||
		    id->state == HCA_CMA_IDLE) {
			id->reuseaddr = r->value != 0;
			return 0;
		}
		return EINVAL;
	case HCA_CMA_OPT_ID_AFONLY:
		if (id->state != HCA_CMA_IDLE)
			return EINVAL;
		id->afonly = r->value != 0;
		return 0;
	case HCA_CMA_OPT_ID_ACK_TIMEOUT:
		if (id->qp_type != IBV_QPT_RC || r->value > 31)
			return EINVAL;
		id->ack_timeout = (uint8_t)r->value;
		id->ack_timeout_set = true;
		return 0;
	default:
		return EINVAL;
	}
}

int
hca_cma_migrate(struct hca_cma *cma, struct hca_cma_owner *o, uint32_t h,
		uint32_t *events)
{
	struct hca_cma_id *id = id_by_handle(cma, h);

	if (!id || id->owner->pid != o->pid)
		return EINVAL;
	if (id->owner != o) {
		struct hca_cma_mc *mc = NULL;
		uint32_t n = 0;

		while ((mc = hca_cma_mc_next(cma, id->handle, NULL, mc)))
			n++;
		if (o->nids >= MPD_CM_SESSION_IDS ||
		    o->njoins + n > MPD_CM_SESSION_JOINS)
			return ENOMEM;
		id->owner->nids--;
		id->owner->njoins -= n;
		o->nids++;
		o->njoins += n;
		id->owner = o;
	}
	*events = id->events_reported;
	return 0;
}

/* ---- multicast (cma.c's rdma_join_multicast, ucma's JOIN_MCAST) ---- */

static void
mc_event(struct hca_cma *cma, struct hca_cma_id *id, struct hca_cma_mc *mc,
	 uint32_t event, int32_t status, const struct mpd_v_ah *ah);

/*
 * A RoCE port has no SA: the join is the port's own, done at once
 * (cma_iboe_join_multicast()). RoCEv2 carries IPv4 groups alone (the
 * kernel: ENOTSUPP for IPv6); the MGID is the group mapped
 * (cma_iboe_set_mgid()), the address GID 1 (the port's IPv4 one) to it,
 * hop limit 64, the Q_Key RDMA_UDP_QKEY unless the id has one.
 */
static int
roce_join(struct hca_cma *cma, struct hca_cma_id *id, struct hca_cma_mc *mc)
{
	const struct mpd_cm_addr *a = &mc->addr;
	struct mpd_v_ah ah;

	if (a->family == AF_INET_) {
		hca_gid_from_ip4(a->addr, mc->mgid);
	} else if (hca_gid_ip4_mapped(a->addr)) {
		memcpy(mc->mgid, a->addr, 16);
	} else {
		return EOPNOTSUPP;
	}
	if (!hca_gid_multicast(mc->mgid))
		return EINVAL;
	if (!id->qkey)
		id->qkey = HCA_CMA_UDP_QKEY;
	memset(&ah, 0, sizeof(ah));
	ah.is_global = 1;
	memcpy(ah.dgid, mc->mgid, 16);
	ah.sgid_index = 1;
	ah.hop_limit = 64;
	ah.port_num = cma->port->port_num;
	mc_event(cma, id, mc, HCA_CMA_EV_MULTICAST_JOIN, 0, &ah);
	return 0;
}

static void
mc_event(struct hca_cma *cma, struct hca_cma_id *id, struct hca_cma_mc *mc,
	 uint32_t event, int32_t status, const struct mpd_v_ah *ah)
{
	struct mpd_cm_event_rec e;

	memset(&e, 0, sizeof(e));
	e.event = event;
	e.status = status;
	e.uid = mc->uid;
	if (ah) {
		e.ud.ah = *ah;
		e.ud.qp_num = MPD_QPN_MCAST;
		e.ud.qkey = id->qkey;
	}
	mc->state = ah ? HCA_CMA_MC_JOINED : HCA_CMA_MC_FAILED;
	if (emit(cma, id, &e))
		mc->events_reported++;
}

int
hca_cma_join(struct hca_cma *cma, struct hca_cma_owner *o,
	     const struct mpd_cm_join_req *r)
{
	struct hca_cma_id *id = id_of(cma, o, r->id);
	const struct hca_port *p = cma->port;
	struct hca_cma_mc *mc;
	struct hca_mad_desc d;
	uint8_t mad[MPD_MAD_LEN];
	uint32_t qkey;
	int rc;

	/* rdma_join_multicast(): a UD id on a device, bound or resolved */
	if (!id || !id->has_port || id->qp_type != IBV_QPT_UD ||
	    (id->state != HCA_CMA_ADDR_BOUND &&
	     id->state != HCA_CMA_ADDR_RESOLVED))
		return EINVAL;
	if (r->flags != HCA_CMA_MC_FULLMEMBER &&
	    r->flags != HCA_CMA_MC_SENDONLY)
		return EINVAL;
	rc = addr_check(&r->addr);
	if (rc)
		return rc;
	if (o->njoins >= MPD_CM_SESSION_JOINS)
		return ENOMEM;
	mc = hca_cma_mc_alloc(cma);
	if (!mc)
		return ENOMEM;
	o->njoins++;
	mc->id = id->handle;
	mc->uid = r->uid;
	mc->addr = r->addr;
	if (p->link != MPD_LINK_IB) {
		rc = roce_join(cma, id, mc);
		if (rc) {
			o->njoins--;
			hca_cma_mc_free(cma, mc);
		}
		return rc;
	}
	/* ucma: FULLMEMBER -> FullMember, SENDONLY_FULLMEMBER ->
	 * SendOnlyFullMember */
	mc->join_state = r->flags == HCA_CMA_MC_SENDONLY ?
			 MPD_MCM_JOIN_SEND_ONLY_FULL : MPD_MCM_JOIN_FULL;
	hca_cma_mgid(id->ps, id->pkey, &r->addr, mc->mgid);
	/* no SM to ask: an error event now rather than a time-out */
	if (!p->sm_lid || p->port_state != HCA_PORT_ACTIVE) {
		mc_event(cma, id, mc, HCA_CMA_EV_MULTICAST_ERROR, -ENETUNREACH,
			 NULL);
		return 0;
	}
	qkey = id->qkey ? id->qkey : HCA_CMA_IPOIB_QKEY;
	hca_cma_mc_query(p, MPD_METHOD_SET, mc->mgid, mc->join_state, qkey,
			 id->pkey, mc->handle, mad, &d);
	d.agent_id = cma->mc_agent;
	d.pkey_index = hca_port_pkey_index(p, id->pkey);
	cma->io->sa_send(cma->io_ctx, &d, mad);
	return 0;
}

/* Drop the join; a Delete to the SA for what no other join of the port
 * still holds (multicast.c leaves a group when its last member goes) */
static void
mc_leave(struct hca_cma *cma, struct hca_cma_id *id, struct hca_cma_mc *mc)
{
	const struct hca_port *p = cma->port;
	struct hca_mad_desc d;
	uint8_t mad[MPD_MAD_LEN];
	uint8_t bits = 0;

	if (mc->state == HCA_CMA_MC_JOINING || mc->state == HCA_CMA_MC_JOINED)
		bits = hca_cma_mc_leave_bits(cma, mc);
	if (bits && p->sm_lid && p->port_state == HCA_PORT_ACTIVE) {
		hca_cma_mc_query(p, MPD_METHOD_DELETE, mc->mgid, bits,
				 id->qkey ? id->qkey : HCA_CMA_IPOIB_QKEY,
				 id->pkey, 0x80000000u | cma->mc_del_tid++,
				 mad, &d);
		d.agent_id = cma->mc_agent;
		d.pkey_index = hca_port_pkey_index(p, id->pkey);
		cma->io->sa_send(cma->io_ctx, &d, mad);
	}
	if (id->owner->njoins)
		id->owner->njoins--;
	hca_cma_mc_free(cma, mc);
}

int
hca_cma_leave(struct hca_cma *cma, struct hca_cma_owner *o,
	      const struct mpd_cm_join_req *r, uint32_t *events)
{
	struct hca_cma_id *id = id_of(cma, o, r->id);
	struct hca_cma_mc *mc = NULL;

	if (!id)
		return EINVAL;
	/* the join the library names (ucma's LEAVE_MCAST names its mc) */
	while ((mc = hca_cma_mc_next(cma, id->handle, &r->addr, mc)) &&
	       mc->uid != r->uid)
		;
	if (!mc)
		return EADDRNOTAVAIL;
	*events = mc->events_reported;
	mc_leave(cma, id, mc);
	return 0;
}

void
hca_cma_mc_sa_input(struct hca_cma *cma, const struct hca_mad_desc *d,
		    const uint8_t *mad, uint32_t len)
{
	struct mpd_mcmember_record rec;
	struct hca_cma_mc *mc;
	struct hca_cma_id *id;
	struct mpd_v_ah ah;

	if (len < MPD_MAD_HDR_LEN)
		return;
	/* a Delete's answer, or a join left meanwhile, names no join */
	mc = hca_cma_mc_by_handle(cma, (uint32_t)mpd_mad_tid(mad));
	if (!mc || mc->state != HCA_CMA_MC_JOINING)
		return;
	id = id_by_handle(cma, mc->id);
	if (!id)
		return;
	/* sa_query.c: no answer -ETIMEDOUT, any MAD status -EINVAL */
	if (d->status) {
		mc_event(cma, id, mc, HCA_CMA_EV_MULTICAST_ERROR,
			 -(int32_t)(d->status == ETIMEDOUT ? ETIMEDOUT :
				    d->status), NULL);
		return;
	}
	if (hca_cma_mc_answer(cma->port, mad, len, mc->mgid, &rec) != 0) {
		mc_event(cma, id, mc, HCA_CMA_EV_MULTICAST_ERROR, -EINVAL,
			 NULL);
		return;
	}
	/* cma_set_qkey(): an id's Q_Key is set once; a group of another
	 * one cannot be used (the kernel gives no event; an error here) */
	if (!id->qkey)
		id->qkey = rec.qkey;
	if (rec.qkey != id->qkey) {
		mc_event(cma, id, mc, HCA_CMA_EV_MULTICAST_ERROR, -EINVAL,
			 NULL);
		return;
	}
	memcpy(mc->mgid, rec.mgid, 16);
	hca_cma_mc_ah(cma->port, &rec, &ah);
	mc_event(cma, id, mc, HCA_CMA_EV_MULTICAST_JOIN, 0, &ah);
}

/* ---- QP attributes (cm.c's cm_init_qp_*_attr, cma_ib_init_qp_attr) ---- */

static void
qp_ah(const struct hca_cma *cma, const struct hca_ibcm_conn *c,
      struct mpd_v_ah *ah)
{
	const struct hca_port *p = cma->port;

	memset(ah, 0, sizeof(*ah));
	ah->dlid = c->path.remote_lid;
	ah->sl = c->path.sl;
	ah->port_num = p->port_num;
	if (p->link == MPD_LINK_IB && c->path.subnet_local)
		return;
	ah->is_global = 1;
	memcpy(ah->dgid, c->path.remote_gid, 16);
	ah->flow_label = c->path.flow_label;
	ah->hop_limit = c->path.hop_limit;
	ah->traffic_class = c->path.tclass;
	/* RoCEv2: GID 1 is the IPv4-mapped one */
	ah->sgid_index = p->link != MPD_LINK_IB &&
			 hca_gid_ip4_mapped(c->path.remote_gid);
	if (p->link != MPD_LINK_IB) {
		ah->dlid = 0;
		if (!ah->hop_limit)
			ah->hop_limit = 64;
	}
}

static bool
conn_past_req(enum hca_ibcm_state s, bool init)
{
	switch (s) {
	case HCA_IBCM_REQ_SENT:
	case HCA_IBCM_MRA_REQ_RCVD:
		return init;
	case HCA_IBCM_REQ_RCVD:
	case HCA_IBCM_MRA_REQ_SENT:
	case HCA_IBCM_REP_RCVD:
	case HCA_IBCM_MRA_REP_SENT:
	case HCA_IBCM_REP_SENT:
	case HCA_IBCM_MRA_REP_RCVD:
	case HCA_IBCM_ESTABLISHED:
		return true;
	default:
		return false;
	}
}

int
hca_cma_init_qp_attr(struct hca_cma *cma, struct hca_cma_owner *o,
		     uint32_t h, uint32_t qp_state,
		     struct mpd_cm_qp_attr_rep *rep)
{
	struct hca_cma_id *id = id_of(cma, o, h);
	struct mpd_v_qp_attr *a = &rep->attr;
	const struct hca_ibcm_conn *c;
	bool rc_qp;

	if (!id || !id->has_port)
		return EINVAL;
	if (qp_state != IBV_QPS_INIT && qp_state != IBV_QPS_RTR &&
	    qp_state != IBV_QPS_RTS)
		return EINVAL;
	memset(rep, 0, sizeof(*rep));
	a->qp_state = qp_state;
	a->port_num = cma->port->port_num;
	c = id->conn;
	if (!c || id->qp_type == IBV_QPT_UD) {
		/* cma_ib_init_qp_attr(): before a connection, or UD */
		a->pkey_index = hca_port_pkey_index(cma->port, id->pkey);
		rep->attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (id->qp_type == IBV_QPT_UD) {
			a->qkey = id->qkey;
			rep->attr_mask |= IBV_QP_QKEY;
		} else {
			a->qp_access_flags = 0;
			rep->attr_mask |= IBV_QP_ACCESS_FLAGS;
		}
		return c || qp_state == IBV_QPS_INIT ||
		       id->qp_type == IBV_QPT_UD ? 0 : EINVAL;
	}
	if (!conn_past_req(c->state, qp_state == IBV_QPS_INIT))
		return EINVAL;
	rc_qp = c->transport == MPD_CM_TRANSPORT_RC;
	switch (qp_state) {
	case IBV_QPS_INIT:
		rep->attr_mask = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS |
				 IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		if (c->resp_resources)
			a->qp_access_flags |= IBV_ACCESS_REMOTE_READ |
					      IBV_ACCESS_REMOTE_ATOMIC;
		a->pkey_index = hca_port_pkey_index(cma->port, c->pkey);
		return 0;
	case IBV_QPS_RTR:
		rep->attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		qp_ah(cma, c, &a->ah);
		a->path_mtu = c->path_mtu;
		a->dest_qp_num = c->remote_qpn;
		a->rq_psn = c->rq_psn;
		if (rc_qp) {
			rep->attr_mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER;
			a->max_dest_rd_atomic = c->resp_resources;
			a->min_rnr_timer = 0;
		}
		return 0;
	default:
		rep->attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		a->sq_psn = c->sq_psn;
		if (rc_qp) {
			rep->attr_mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY |
					  IBV_QP_MAX_QP_RD_ATOMIC;
			a->timeout = id->ack_timeout_set ? id->ack_timeout :
							   c->ack_timeout;
			a->retry_cnt = c->retry_count;
			a->rnr_retry = c->rnr_retry_count;
			a->max_rd_atomic = c->initiator_depth;
		}
		return 0;
	}
}

/* ---- the IB CM's events ------------------------------------------------- */

static void
conn_param(const struct hca_ibcm_conn *c, struct mpd_cm_conn_param *p,
	   const uint8_t *pdata, uint8_t len)
{
	p->qp_num = c->remote_qpn;
	p->responder_resources = c->resp_resources;
	p->initiator_depth = c->initiator_depth;
	p->retry_count = c->retry_count;
	p->rnr_retry_count = c->rnr_retry_count;
	p->srq = c->srq;
	p->private_data_len = len > MPD_CM_PDATA_MAX ? MPD_CM_PDATA_MAX : len;
	/* an event of no message (notify's ESTABLISHED) has no data */
	if (p->private_data_len)
		memcpy(p->private_data, pdata, p->private_data_len);
}

/* The sender of a request, as an address handle for the reply */
static void
ah_from(const struct hca_cma *cma, const struct hca_mad_desc *d,
	struct mpd_v_ah *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = be16toh(d->lid);
	ah->sl = d->sl;
	ah->port_num = cma->port->port_num;
	if (!d->grh_present)
		return;
	ah->is_global = 1;
	memcpy(ah->dgid, d->gid, 16);
	ah->hop_limit = d->hop_limit;
	ah->traffic_class = d->traffic_class;
	ah->flow_label = be32toh(d->flow_label);
	ah->sgid_index = cma->port->link != MPD_LINK_IB &&
			 hca_gid_ip4_mapped(d->gid);
}

/* The cma header of a request: the addresses the child id takes */
static bool
hdr_addrs(const uint8_t *h, struct mpd_cm_addr *src, struct mpd_cm_addr *dst)
{
	uint8_t ver = h[1] >> 4;

	if (h[0] != 0 || (ver != 4 && ver != 6))
		return false;
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	/* the peer's port and address are the child's destination */
	dst->port = mpd_get_be16(h + 2);
	if (ver == 4) {
		src->family = dst->family = AF_INET_;
		memcpy(dst->addr, h + 16, 4);
		memcpy(src->addr, h + 32, 4);
	} else {
		src->family = dst->family = AF_INET6_;
		memcpy(dst->addr, h + 4, 16);
		memcpy(src->addr, h + 20, 16);
	}
	return true;
}

static void
path_from_conn(const struct hca_ibcm_conn *c, struct mpd_cm_path_rec *p)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->dgid, c->path.remote_gid, 16);
	memcpy(p->sgid, c->path.local_gid, 16);
	p->dlid = c->path.remote_lid;
	p->slid = c->path.local_lid;
	p->pkey = c->pkey;
	p->reversible = 1;
	p->flow_label = c->path.flow_label;
	p->hop_limit = c->path.hop_limit;
	p->traffic_class = c->path.tclass;
	p->numb_path = 1;
	p->sl = c->path.sl;
	p->mtu_selector = 2;
	p->mtu = c->path_mtu;
	p->rate_selector = 2;
	p->rate = c->path.packet_rate;
	p->packet_life_time_selector = 2;
	p->packet_life_time = c->ack_timeout ? c->ack_timeout - 1 : 0;
}

/* A REQ or SIDR_REQ for a listen: a child id, and CONNECT_REQUEST; or
 * refused (no such listen, a bad cma header), or dropped unanswered for
 * the peer to retry (a full backlog, no memory, an owner gone). */
static enum hca_ibcm_verdict
request(struct hca_cma *cma, struct hca_ibcm_conn *c,
	const struct hca_ibcm_event *ev)
{
	struct hca_cma_id *l = ev->listen, *id;
	struct mpd_cm_event_rec e;
	bool ud = ev->type == HCA_IBCM_EV_SIDR_REQ_RECEIVED;
	const uint8_t *pdata = ud ? ev->m.sidr_req.private_data :
				    ev->m.req.private_data;
	uint32_t room = ud ? MPD_CM_SIDR_REQ_PDATA_LEN : MPD_CM_REQ_PDATA_LEN;
	struct mpd_cm_addr src, dst;
	struct hca_neigh self;

	if (!l->used || l->state != HCA_CMA_LISTEN || !l->owner ||
	    l->owner->dead || ud != (l->qp_type == IBV_QPT_UD))
		return HCA_IBCM_REJECT;
	if (!hdr_addrs(pdata, &src, &dst))
		return HCA_IBCM_REJECT;
	/* the backlog is full: drop it, the peer's retry may find room */
	if (l->pending >= l->backlog)
		return HCA_IBCM_DROP;
	id = id_alloc(cma, l->owner, l->ps, l->qp_type);
	if (!id)
		return HCA_IBCM_DROP;
	hca_port_neigh(cma->port, &self);
	id->src = src;
	id->src.port = l->src.port;
	if (hca_cma_addr_any(&id->src))
		own_addr(cma->port, &id->src, src.family);
	id->dst = dst;
	id->has_port = true;
	id->state = HCA_CMA_CONNECT;
	id->parent = l->handle;
	id->in_backlog = true;
	id->qkey = l->qkey;
	id->tos = l->tos;
	id->conn = c;
	c->owner = id;
	hca_cma_gid(cma->port, &self, id->sgid);
	memset(&e, 0, sizeof(e));
	e.event = HCA_CMA_EV_CONNECT_REQUEST;
	e.child = id->handle;
	if (ud) {
		id->pkey = c->pkey ? c->pkey : 0xffff;
		memcpy(id->dgid, ev->from->gid, 16);
		ah_from(cma, ev->from, &e.ud.ah);
		e.ud.qkey = id->qkey;
		e.conn.private_data_len = (uint8_t)(room - MPD_CM_HDR_LEN);
		memcpy(e.conn.private_data, pdata + MPD_CM_HDR_LEN,
		       e.conn.private_data_len);
	} else {
		id->pkey = c->pkey;
		memcpy(id->dgid, c->path.remote_gid, 16);
		path_from_conn(c, &id->path);
		id->num_paths = 1;
		conn_param(c, &e.conn, pdata + MPD_CM_HDR_LEN,
			   (uint8_t)(room - MPD_CM_HDR_LEN));
	}
	l->pending++;
	emit(cma, l, &e);
	if (l->owner->dead) {
		/* it could not take the request: as if it never came */
		c->owner = NULL;
		id->conn = NULL;
		backlog_leave(cma, id);
		id_free(cma, id);
		return HCA_IBCM_DROP;
	}
	return HCA_IBCM_TAKE;
}

static void
conn_event(struct hca_cma *cma, struct hca_cma_id *id, uint32_t event,
	   int32_t status, const uint8_t *pdata, uint8_t len)
{
	struct mpd_cm_event_rec e;

	memset(&e, 0, sizeof(e));
	e.event = event;
	e.status = status;
	if (id->conn)
		conn_param(id->conn, &e.conn, pdata, len);
	emit(cma, id, &e);
}

static void
disconnected(struct hca_cma *cma, struct hca_cma_id *id, int32_t status,
	     const uint8_t *pdata, uint8_t len)
{
	/* cma.c: once, from CONNECT to DISCONNECT */
	if (id->state != HCA_CMA_CONNECT)
		return;
	id->state = HCA_CMA_DISCONNECT;
	conn_event(cma, id, HCA_CMA_EV_DISCONNECTED, status, pdata, len);
}

static void
sidr_answer(struct hca_cma *cma, struct hca_cma_id *id,
	    const struct mpd_cm_sidr_rep *r)
{
	struct mpd_cm_event_rec e;
	struct hca_ibcm_conn c;

	memset(&e, 0, sizeof(e));
	e.conn.private_data_len = MPD_CM_SIDR_REP_PDATA_LEN;
	memcpy(e.conn.private_data, r->private_data, MPD_CM_SIDR_REP_PDATA_LEN);
	if (r->status != MPD_CM_SIDR_OK) {
		e.event = HCA_CMA_EV_UNREACHABLE;
		e.status = r->status;
		emit(cma, id, &e);
		return;
	}
	/* the AH from the route, as ib_init_ah_attr_from_path() */
	memset(&c, 0, sizeof(c));
	c.path.remote_lid = id->path.dlid;
	c.path.sl = id->path.sl;
	c.path.subnet_local = id->path.hop_limit <= 1;
	memcpy(c.path.remote_gid, id->path.dgid, 16);
	c.path.flow_label = id->path.flow_label;
	c.path.hop_limit = id->path.hop_limit;
	c.path.tclass = id->path.traffic_class;
	qp_ah(cma, &c, &e.ud.ah);
	e.ud.qp_num = r->qpn;
	e.ud.qkey = r->qkey;
	id->qkey = r->qkey;
	e.event = HCA_CMA_EV_ESTABLISHED;
	emit(cma, id, &e);
}

enum hca_ibcm_verdict
hca_cma_cm_event(struct hca_cma *cma, struct hca_ibcm_conn *c,
		 const struct hca_ibcm_event *ev)
{
	struct hca_cma_id *id = c->owner;

	if (ev->type == HCA_IBCM_EV_REQ_RECEIVED ||
	    ev->type == HCA_IBCM_EV_SIDR_REQ_RECEIVED)
		return request(cma, c, ev);
	if (!id || !id->used || id->conn != c)
		return HCA_IBCM_TAKE;
	switch (ev->type) {
	case HCA_IBCM_EV_REQ_ERROR:
	case HCA_IBCM_EV_REP_ERROR:
	case HCA_IBCM_EV_SIDR_REQ_ERROR:
		conn_event(cma, id, HCA_CMA_EV_UNREACHABLE, -ETIMEDOUT, NULL,
			   0);
		break;
	case HCA_IBCM_EV_REP_RECEIVED:
		/* a user QP: the library moves it, then ESTABLISHes */
		conn_event(cma, id, HCA_CMA_EV_CONNECT_RESPONSE, 0,
			   ev->m.rep.private_data, MPD_CM_REP_PDATA_LEN);
		break;
	case HCA_IBCM_EV_RTU_RECEIVED:
		conn_event(cma, id, HCA_CMA_EV_ESTABLISHED, 0,
			   ev->m.rtu.private_data, MPD_CM_PDATA_MAX);
		break;
	case HCA_IBCM_EV_USER_ESTABLISHED:
		conn_event(cma, id, HCA_CMA_EV_ESTABLISHED, 0, NULL, 0);
		break;
	case HCA_IBCM_EV_DREQ_ERROR:
		disconnected(cma, id, -ETIMEDOUT, NULL, 0);
		break;
	case HCA_IBCM_EV_DREQ_RECEIVED:
		disconnected(cma, id, 0, ev->m.dreq.private_data,
			     MPD_CM_PDATA_MAX);
		break;
	case HCA_IBCM_EV_DREP_RECEIVED:
		disconnected(cma, id, 0, ev->m.drep.private_data,
			     MPD_CM_PDATA_MAX);
		break;
	case HCA_IBCM_EV_TIMEWAIT_EXIT:
		conn_event(cma, id, HCA_CMA_EV_TIMEWAIT_EXIT, 0, NULL, 0);
		break;
	case HCA_IBCM_EV_REJ_RECEIVED:
		conn_event(cma, id, HCA_CMA_EV_REJECTED, ev->m.rej.reason,
			   ev->m.rej.private_data, MPD_CM_REJ_PDATA_LEN);
		break;
	case HCA_IBCM_EV_SIDR_REP_RECEIVED:
		sidr_answer(cma, id, &ev->m.sidr_rep);
		break;
	default:
		break;	/* MRA: the CM extended its timer */
	}
	return HCA_IBCM_TAKE;
}
