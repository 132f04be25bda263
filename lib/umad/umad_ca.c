/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CAs and ports: a madpmd node is one CA, named $MADPMD_DEVICE in the
 * process whose node it is (madpmd-run: "madpmd0" on every node, as
 * hosts name their HCAs alike), else as the fabric names the node.
 * Which node: the CA name when given, else $MADPMD_NODE, else the first
 * node in $MADPMD_RUN_DIR/nodes. A process sees one CA, the selected
 * node, the way a host sees its own HCA; the port attributes come from
 * the daemon (HELLO's port description), not from sysfs.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/attr.h"
#include "umad_priv.h"

/* Copy a name that may not fit, cut short and NUL-terminated. */
static void
copy_name(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void
fill_port(umad_port_t *port, const char *ca_name,
	  const struct mpd_chan_port_info *pi)
{
	unsigned int n = pi->num_pkeys, i;

	memset(port, 0, sizeof(*port));
	copy_name(port->ca_name, sizeof(port->ca_name), ca_name);
	port->portnum = (int)pi->port_num;
	port->base_lid = pi->lid;
	port->lmc = pi->lmc;
	port->sm_lid = pi->sm_lid;
	mpd_chan_no_sm_hint(ca_name, pi);
	port->sm_sl = pi->sm_sl;
	port->state = pi->state;
	port->phys_state = pi->phys_state;
	port->rate = pi->rate;
	port->capmask = htobe32(pi->capmask);
	port->gid_prefix = htobe64(pi->gid_prefix);
	port->port_guid = htobe64(pi->port_guid);
	snprintf(port->link_layer, sizeof(port->link_layer), "%s",
		 pi->link_layer ? "Ethernet" : "InfiniBand");
	if (n > sizeof(pi->pkeys) / sizeof(pi->pkeys[0]))
		n = sizeof(pi->pkeys) / sizeof(pi->pkeys[0]);
	if (!n)
		return;
	port->pkeys = calloc(n, sizeof(port->pkeys[0]));
	if (!port->pkeys)
		return;
	for (i = 0; i < n; i++)
		port->pkeys[i] = pi->pkeys[i];
	port->pkeys_size = n;
}

static void
release_port(umad_port_t *port)
{
	free(port->pkeys);
	port->pkeys = NULL;
	port->pkeys_size = 0;
}

static void
release_ca(umad_ca_t *ca)
{
	int i;

	for (i = 0; i < UMAD_CA_MAX_PORTS; i++) {
		if (!ca->ports[i])
			continue;
		release_port(ca->ports[i]);
		free(ca->ports[i]);
		ca->ports[i] = NULL;
	}
}

/* The selected node, if there is one and its name fits a CA name. */
static bool
selected_node(struct mpd_chan_node *n)
{
	if (mpd_chan_node_lookup(NULL, n) != MPD_CHAN_NODE_FOUND)
		return false;
	return strlen(n->dev) < UMAD_CA_NAME_LEN;
}

UMAD_EXPORT int
umad_get_cas_names(char cas[][UMAD_CA_NAME_LEN], int max)
{
	struct mpd_chan_node n;

	UMAD_DBG("max %d", max);
	if (!cas || max < 1 || !selected_node(&n))
		return 0;
	copy_name(cas[0], UMAD_CA_NAME_LEN, n.dev);
	return 1;
}

static int
get_ca(const struct mpd_chan_node *n, umad_ca_t *ca)
{
	struct mpd_chan_port_info pi;
	bool first = true;
	int p, rc, last, top = 0;

	memset(ca, 0, sizeof(*ca));
	copy_name(ca->ca_name, sizeof(ca->ca_name), n->dev);
	ca->node_type = 1;
	ca->numports = (int)n->num_ports;
	ca->node_guid = htobe64(n->node_guid);
	last = ca->numports < UMAD_CA_MAX_PORTS - 1 ? ca->numports :
						      UMAD_CA_MAX_PORTS - 1;
	/* a switch shows its port 0 alone, as the kernel's sysfs ports/0:
	 * numports 0 (libibumad's get_ca()) */
	p = 1;
	if (n->sw)
		p = last = 0;
	for (; p <= last; p++) {
		rc = mpd_chan_port_query(n, p, &pi);
		if (rc == -EINVAL)
			continue;	/* a port the daemon does not serve */
		if (rc < 0)
			goto fail;
		ca->ports[p] = calloc(1, sizeof(*ca->ports[p]));
		if (!ca->ports[p]) {
			rc = -ENOMEM;
			goto fail;
		}
		fill_port(ca->ports[p], n->dev, &pi);
		top = p;
		if (!first)
			continue;
		first = false;
		ca->node_type = pi.node_type ? pi.node_type : 1;
		ca->node_guid = htobe64(pi.node_guid);
		ca->system_guid = htobe64(pi.sys_guid);
		snprintf(ca->fw_ver, sizeof(ca->fw_ver), "%u.%u.%u",
			 pi.fw_ver >> 24, (pi.fw_ver >> 16) & 0xff,
			 pi.fw_ver & 0xffff);
	}
	if (first)
		return -EIO;	/* no port at all */
	/* as libibumad: the highest port present (never a NULL port) */
	ca->numports = top;
	snprintf(ca->ca_type, sizeof(ca->ca_type), "madpmd net_hca");
	snprintf(ca->hw_ver, sizeof(ca->hw_ver), "0x0");
	return 0;
fail:
	release_ca(ca);
	return rc;
}

UMAD_EXPORT int
umad_get_ca(const char *ca_name, umad_ca_t *ca)
{
	struct mpd_chan_node n;

	UMAD_DBG("ca_name %s", ca_name ? ca_name : "(null)");
	if (!ca || mpd_chan_node_lookup(ca_name, &n) != MPD_CHAN_NODE_FOUND)
		return -ENODEV;
	return get_ca(&n, ca);
}

UMAD_EXPORT int
umad_release_ca(umad_ca_t *ca)
{
	if (!ca)
		return -ENODEV;
	UMAD_DBG("releasing %s", ca->ca_name);
	release_ca(ca);
	return 0;
}

UMAD_EXPORT int
umad_get_ca_portguids(const char *ca_name, __be64 *portguids, int max)
{
	struct mpd_chan_node n;
	umad_ca_t ca;
	int ports = 0, i;

	UMAD_DBG("ca name %s max port guids %d", ca_name ? ca_name : "(null)",
		 max);
	if (mpd_chan_node_lookup(ca_name, &n) != MPD_CHAN_NODE_FOUND)
		return -ENODEV;
	if (get_ca(&n, &ca) < 0)
		return -1;
	if (portguids) {
		if (ca.numports + 1 > max) {
			release_ca(&ca);
			return -ENOMEM;
		}
		for (i = 0; i <= ca.numports; i++)
			portguids[ports++] = i < UMAD_CA_MAX_PORTS &&
					     ca.ports[i] ?
					     ca.ports[i]->port_guid : 0;
	}
	release_ca(&ca);
	return ports;
}

UMAD_EXPORT int
umad_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	struct mpd_chan_port_info pi;
	struct mpd_chan_node n;
	int rc;

	UMAD_DBG("ca_name %s portnum %d", ca_name ? ca_name : "(null)",
		 portnum);
	if (!port || mpd_chan_node_lookup(ca_name, &n) != MPD_CHAN_NODE_FOUND)
		return -ENODEV;
	/* libibumad reads the port's sysfs files: no such port is -EIO */
	if (portnum < 0 || (unsigned int)portnum > n.num_ports)
		return -EIO;
	rc = mpd_chan_port_query(&n, portnum, &pi);
	if (rc < 0)
		return -EIO;
	fill_port(port, n.name, &pi);
	return 0;
}

UMAD_EXPORT int
umad_release_port(umad_port_t *port)
{
	if (!port)
		return -ENODEV;
	UMAD_DBG("releasing %s:%d", port->ca_name, port->portnum);
	release_port(port);
	return 0;
}

UMAD_EXPORT int
umad_get_issm_path(const char *ca_name, int portnum, char path[], int max)
{
	struct mpd_chan_node n;

	UMAD_DBG("ca %s port %d", ca_name ? ca_name : "(null)", portnum);
	if (mpd_chan_node_lookup(ca_name, &n) != MPD_CHAN_NODE_FOUND)
		return -ENODEV;
	if (portnum < 0 || (unsigned int)portnum > n.num_ports)
		return -EINVAL;
	if (path && max > 0) {
		char file[32];

		mpd_chan_port_file(file, sizeof(file), MPD_CHAN_ISSM,
				   portnum > 0 ? (unsigned int)portnum : 1);
		snprintf(path, (size_t)max, "%s/%s/%s", n.run_dir, n.name,
			 file);
	}
	return 0;
}

/* ---- the device list (IBUMAD_1.1, 1.2) ----------------------------------- */

UMAD_EXPORT struct umad_device_node *
umad_get_ca_device_list(void)
{
	struct umad_device_node *node;
	struct mpd_chan_node n;
	size_t len;

	if (!selected_node(&n)) {
		errno = 0;
		return NULL;
	}
	len = strlen(n.dev) + 1;
	node = calloc(1, sizeof(*node) + len);
	if (!node) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(node + 1, n.dev, len);
	node->ca_name = (const char *)(node + 1);
	errno = 0;
	return node;
}

UMAD_EXPORT void
umad_free_ca_device_list(struct umad_device_node *head)
{
	struct umad_device_node *next;

	for (; head; head = next) {
		next = head->next;
		free(head);
	}
}

static int
cmp_node(const void *a, const void *b)
{
	const struct umad_device_node *x = *(const struct umad_device_node *const *)a;
	const struct umad_device_node *y = *(const struct umad_device_node *const *)b;

	return strcmp(x->ca_name, y->ca_name);
}

UMAD_EXPORT int
umad_sort_ca_device_list(struct umad_device_node **head, size_t size)
{
	struct umad_device_node **v, *node;
	size_t i;

	if (!head)
		return EINVAL;
	if (!size)
		for (node = *head; node; node = node->next)
			size++;
	if (size < 2)
		return 0;
	v = calloc(size, sizeof(*v));
	if (!v)
		return ENOMEM;
	node = *head;
	for (i = 0; i < size; i++) {
		if (!node) {
			free(v);
			return EINVAL;
		}
		v[i] = node;
		node = node->next;
	}
	if (node) {
		free(v);
		return EINVAL;
	}
	qsort(v, size, sizeof(*v), cmp_node);
	for (i = 0; i + 1 < size; i++)
		v[i]->next = v[i + 1];
	v[size - 1]->next = NULL;
	*head = v[0];
	free(v);
	return 0;
}
