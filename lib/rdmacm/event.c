/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_get_cm_event(): the next record of the channel, made into the
 * event rdma-core's librdmacm makes of the kernel's (ucma_get_event in
 * cma.c): the id's route queried after ADDR_RESOLVED and ROUTE_RESOLVED,
 * the new id of a CONNECT_REQUEST, and the active side's REP taken to
 * ESTABLISHED when the id has a QP. Blocking unless the application made
 * the fd non-blocking (EAGAIN then), as the kernel's read() is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmacm_priv.h"

/* The next record and the id it names, the record counted as taken:
 * 1, 0 when none waits, or -EIO. */
static int
next_record(struct cma_chan *c, struct mpd_cm_event_rec *r,
	    struct cma_id **owner)
{
	struct cma_rec *q;
	int rc = 0;

	pthread_mutex_lock(&c->rx_lock);
	if (cma_drain(c)) {
		pthread_mutex_unlock(&c->rx_lock);
		return -EIO;
	}
	while ((q = c->queued)) {
		c->queued = q->next;
		if (!c->queued)
			c->queued_tail = &c->queued;
		*r = q->r;
		free(q);
		/* cma_drain() kept it: its id was in the table, and stays
		 * until the record is completed */
		*owner = cma_id_lookup(r->id);
		if (!*owner)
			continue;
		cma_id_taken(*owner);
		rc = 1;
		break;
	}
	cma_chan_rearm(c);
	pthread_mutex_unlock(&c->rx_lock);
	return rc;
}

static void
copy_conn(struct cma_event *e, const struct mpd_cm_conn_param *src)
{
	struct rdma_conn_param *dst = &e->event.param.conn;
	uint8_t len = src->private_data_len;

	/* what the daemon says is not trusted to fit */
	if (len > MPD_CM_PDATA_MAX)
		len = MPD_CM_PDATA_MAX;
	dst->private_data_len = len;
	if (len) {
		memcpy(e->private_data, src->private_data, len);
		dst->private_data = e->private_data;
	}
	dst->responder_resources = src->responder_resources;
	dst->initiator_depth = src->initiator_depth;
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count & 7;
	dst->rnr_retry_count = src->rnr_retry_count & 7;
	dst->srq = src->srq;
	dst->qp_num = src->qp_num & 0xffffff;
}

static void
copy_ud(struct cma_event *e, const struct mpd_cm_event_rec *r)
{
	struct rdma_ud_param *dst = &e->event.param.ud;
	uint8_t len = r->conn.private_data_len;

	if (len > MPD_CM_PDATA_MAX)
		len = MPD_CM_PDATA_MAX;
	dst->private_data_len = len;
	if (len) {
		memcpy(e->private_data, r->conn.private_data, len);
		dst->private_data = e->private_data;
	}
	cma_ah_from_mpd(&dst->ah_attr, &r->ud.ah);
	dst->qp_num = r->ud.qp_num & 0xffffff;
	dst->qkey = r->ud.qkey;
}

static void
copy_params(struct cma_event *e, struct cma_id *p,
	    const struct mpd_cm_event_rec *r)
{
	if (p->id.qp_type == IBV_QPT_UD)
		copy_ud(e, r);
	else
		copy_conn(e, &r->conn);
}

/* A CONNECT_REQUEST: the id the daemon made for it, on the listener's
 * channel (its own one when the listener is synchronous), queried for
 * its addresses and route (ucma_process_conn_req). 0 or an errno; the
 * daemon's id is destroyed (the request rejected) on failure. */
static int
conn_req(struct cma_event *e, struct cma_id *listen, uint32_t child)
{
	struct cma_id *p;
	int rc;

	if (!child)
		return EPROTO;
	p = cma_id_alloc(listen->id.channel, listen->id.context,
			 listen->id.ps, listen->id.qp_type);
	if (!p) {
		cma_destroy_handle(cma_chan(listen->id.channel), child);
		return ENOMEM;
	}
	cma_id_insert(p, child);
	e->event.listen_id = &listen->id;
	e->event.id = &p->id;
	p->initiator_depth = e->event.param.conn.initiator_depth;
	p->responder_resources = e->event.param.conn.responder_resources;
	if (listen->sync && rdma_migrate_id(&p->id, NULL)) {
		rc = errno;
		goto fail;
	}
	rc = cma_query(p);
	if (rc)
		goto fail;
	return 0;
fail:
	rdma_destroy_id(&p->id);
	return rc;
}

/* A join's event (ucma_process_join()): the join the record names, the
 * group's address into the join, and the id's QP attached to it unless
 * the join is send-only; a failed attach makes it MULTICAST_ERROR with
 * status -1 and errno, as rdma_seterrno() leaves it. false when the
 * join was left meanwhile (the record is dropped). */
static bool
mc_event(struct cma_event *e, struct cma_id *p,
	 const struct mpd_cm_event_rec *r)
{
	struct rdma_ud_param *ud = &e->event.param.ud;
	struct cma_mc *mc;
	int rc;

	pthread_mutex_lock(&p->mut);
	for (mc = p->mc_list; mc; mc = mc->next)
		if ((uintptr_t)mc == r->uid)
			break;
	if (mc)
		mc->out++;
	pthread_mutex_unlock(&p->mut);
	if (!mc)
		return false;
	e->mc = mc;
	ud->private_data = mc->context;
	if (r->event != RDMA_CM_EVENT_MULTICAST_JOIN)
		return true;
	cma_ah_from_mpd(&ud->ah_attr, &r->ud.ah);
	ud->qp_num = r->ud.qp_num & 0xffffff;
	ud->qkey = r->ud.qkey;
	mc->mgid = ud->ah_attr.grh.dgid;
	mc->mlid = ud->ah_attr.dlid;
	if (!p->id.qp || mc->join_flags == RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return true;
	rc = ibv_attach_mcast(p->id.qp, &mc->mgid, mc->mlid);
	if (rc) {
		errno = rc;
		e->event.event = RDMA_CM_EVENT_MULTICAST_ERROR;
		e->event.status = -1;
	}
	return true;
}

/* Make the event of a record; false when it is dropped instead (then
 * completed here) */
static bool
make_event(struct cma_event *e, struct cma_id *p,
	   const struct mpd_cm_event_rec *r)
{
	int rc;

	e->owner = p;
	e->event.id = &p->id;
	e->event.event = (enum rdma_cm_event_type)r->event;
	e->event.status = r->status;
	switch (r->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		rc = cma_query(p);
		if (rc) {
			e->event.event = RDMA_CM_EVENT_ADDR_ERROR;
			e->event.status = -rc;
		}
		return true;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rc = cma_query(p);
		if (rc) {
			e->event.event = RDMA_CM_EVENT_ROUTE_ERROR;
			e->event.status = -rc;
		}
		return true;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		copy_params(e, p, r);
		if (conn_req(e, p, r->child))
			goto drop;
		return true;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		copy_conn(e, &r->conn);
		if (!p->id.qp)
			return true;
		rc = cma_conn_resp(p);
		if (!rc) {
			e->event.event = RDMA_CM_EVENT_ESTABLISHED;
			return true;
		}
		e->event.event = RDMA_CM_EVENT_CONNECT_ERROR;
		e->event.status = -rc;
		p->connect_error = true;
		return true;
	case RDMA_CM_EVENT_REJECTED:
		if (p->connect_error)
			goto drop;
		copy_conn(e, &r->conn);
		cma_qp_to_err(p);
		return true;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (p->connect_error)
			goto drop;
		copy_conn(e, &r->conn);
		return true;
	case RDMA_CM_EVENT_MULTICAST_JOIN:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		if (!mc_event(e, p, r))
			goto drop;
		return true;
	default:
		if (r->event > RDMA_CM_EVENT_TIMEWAIT_EXIT)
			goto drop;
		copy_params(e, p, r);
		return true;
	}
drop:
	cma_id_complete(p);
	return false;
}

/* The next event, waiting for it unless the fd is non-blocking; -1
 * with errno set; -1 with the channel closing when the application
 * destroyed it while we waited. */
static int
get_event(struct cma_chan *c, struct rdma_cm_event **event)
{
	struct mpd_cm_event_rec r;
	struct cma_event *e;
	struct cma_id *p;
	int rc, fl, fd;

	for (;;) {
		rc = next_record(c, &r, &p);
		if (rc < 0)
			return cma_err(EIO);
		if (rc > 0) {
			e = calloc(1, sizeof(*e));
			if (!e) {
				cma_id_complete(p);
				return cma_err(ENOMEM);
			}
			if (make_event(e, p, &r)) {
				*event = &e->event;
				return 0;
			}
			free(e);
			continue;
		}
		if (cma_chan_closing(c))
			return -1;
		fd = __atomic_load_n(&c->ch.fd, __ATOMIC_RELAXED);
		fl = fcntl(fd, F_GETFL);
		if (fl < 0 || (fl & O_NONBLOCK))
			return cma_err(EAGAIN);
		rc = cma_chan_wait(c, -1);
		if (rc)
			return cma_err(rc);
	}
}

CMA_EXPORT int
rdma_get_cm_event(struct rdma_event_channel *channel,
		  struct rdma_cm_event **event)
{
	struct cma_chan *c = cma_chan(channel);
	int rc;

	if (!channel || !event)
		return cma_err(EINVAL);
	cma_chan_get(c);
	rc = get_event(c, event);
	if (rc == -1 && cma_chan_closing(c)) {
		/* destroyed under us: the kernel's read() stays blocked on
		 * the file it holds, and so does this call, for good; an
		 * error would make rping's cm_thread exit() the process */
		cma_chan_put(c);
		for (;;)
			pause();
	}
	cma_chan_put(c);
	return rc;
}

int
cma_complete(struct cma_id *p)
{
	struct rdma_cm_event *e;
	int rc;

	if (!p->sync)
		return 0;
	if (p->id.event) {
		rdma_ack_cm_event(p->id.event);
		p->id.event = NULL;
	}
	rc = rdma_get_cm_event(p->id.channel, &p->id.event);
	if (rc)
		return rc;
	e = p->id.event;
	if (!e->status)
		return 0;
	if (e->event == RDMA_CM_EVENT_REJECTED)
		return cma_err(ECONNREFUSED);
	return cma_err(e->status < 0 ? -e->status : e->status);
}

CMA_EXPORT const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const names[] = {
		[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event >= sizeof(names) / sizeof(names[0]))
		return "UNKNOWN EVENT";
	return names[event];
}
