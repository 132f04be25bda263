/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names of management classes, methods, statuses and attributes, as
 * libibumad's umad_str.c returns them (the same strings, spelling quirks
 * included, since tools print them and scripts match them).
 */
#include <endian.h>
#include <stddef.h>

#include <infiniband/umad_str.h>

#include "umad_priv.h"

struct name {
	uint16_t id;
	const char *str;
};

#define DIM(a)	(sizeof(a) / sizeof((a)[0]))

static const char *
find(const struct name *t, size_t n, uint16_t id, const char *dflt)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].id == id)
			return t[i].str;
	return dflt;
}

static const struct name classes[] = {
	{ 0x01, "Subn" },
	{ 0x81, "Subn" },
	{ 0x03, "SubnAdm" },
	{ 0x04, "Perf" },
	{ 0x05, "BM" },
	{ 0x06, "DevMgt" },
	{ 0x07, "ComMgt" },
	{ 0x08, "SNMP" },
	{ 0x10, "DevAdm" },
	{ 0x11, "BootMgt" },
	{ 0x12, "BIS" },
	{ 0x21, "CongestionManagment" },
};

UMAD_EXPORT const char *
umad_class_str(uint8_t mgmt_class)
{
	const char *s = find(classes, DIM(classes), mgmt_class, NULL);

	if (s)
		return s;
	if ((mgmt_class >= 0x09 && mgmt_class <= 0x0f) ||
	    (mgmt_class >= 0x30 && mgmt_class <= 0x4f))
		return "Vendor";
	if (mgmt_class >= 0x10 && mgmt_class <= 0x2f)
		return "Application";
	return "<unknown>";
}

static const struct name common_methods[] = {
	{ 0x01, "Get" },
	{ 0x02, "Set" },
	{ 0x81, "GetResp" },
	{ 0x03, "Send" },
	{ 0x05, "Trap" },
	{ 0x06, "Report" },
	{ 0x86, "ReportResp" },
	{ 0x07, "TrapRepress" },
};

static const struct name sa_methods[] = {
	{ 0x12, "GetTable" },
	{ 0x92, "GetTableResp" },
	{ 0x15, "Delete" },
	{ 0x95, "DeleteResp" },
	{ 0x14, "GetMulti" },
	{ 0x94, "GetMultiResp" },
	{ 0x13, "GetTraceTable" },
};

UMAD_EXPORT const char *
umad_method_str(uint8_t mgmt_class, uint8_t method)
{
	const char *s = NULL;

	if (mgmt_class == 0x03)
		s = find(sa_methods, DIM(sa_methods), method, NULL);
	/* libibumad's default lacks the closing '>' */
	return s ? s : find(common_methods, DIM(common_methods), method,
			    "<unknown");
}

UMAD_EXPORT const char *
umad_common_mad_status_str(__be16 status_be)
{
	uint16_t status = be16toh(status_be);

	if (status & 0x0001)
		return "Busy";
	if (status & 0x0002)
		return "Redirection required";
	switch (status & 0x001c) {
	case 1 << 2:
		return "Bad Version";
	case 2 << 2:
		return "Method not supported";
	case 3 << 2:
		return "Method/Attribute combo not supported";
	case 7 << 2:
		return "Invalid attribute/modifier field";
	default:
		return "Success";
	}
}

static const char *const sa_status[] = {
	"Success",
	"No Resources",
	"Request Invalid",
	"No Records",
	"Too Many Records",
	"Invalid GID",
	"Insufficient Components",
	"Request Denied",
	"Priority Suggested",
};

UMAD_EXPORT const char *
umad_sa_mad_status_str(__be16 status_be)
{
	unsigned int code = (be16toh(status_be) & 0xff00) >> 8;

	return code < DIM(sa_status) ? sa_status[code] : "Undefined Error";
}

static const struct name common_attrs[] = {
	{ 0x0001, "Class Port Info" },
	{ 0x0002, "Notice" },
	{ 0x0003, "Inform Info" },
};

static const struct name sm_attrs[] = {
	{ 0x0010, "NodeDescription" },
	{ 0x0011, "NodeInfo" },
	{ 0x0012, "SwitchInfo" },
	{ 0x0014, "GUIDInfo" },
	{ 0x0015, "PortInfo" },
	{ 0x0016, "P_KeyTable" },
	{ 0x0017, "SLtoVLMappingTable" },
	{ 0x0018, "VLArbitrationTable" },
	{ 0x0019, "LinearForwardingTable" },
	{ 0x001a, "RandomForwardingTable" },
	{ 0x001b, "MulticastForwardingTable" },
	{ 0x001c, "LinkSpeedWidthPairsTable" },
	{ 0x001d, "VendorSpecificMadsTable" },
	{ 0x001e, "HierarchyInfo" },
	{ 0x0020, "SMInfo" },
	{ 0x0030, "VendorDiag" },
	{ 0x0031, "LedInfo" },
	{ 0x0032, "CableInfo" },
	{ 0x0033, "PortInfoExtended" },
};

static const struct name sa_attrs[] = {
	{ 0x0011, "NodeRecord" },
	{ 0x0012, "PortInfoRecord" },
	{ 0x0013, "SLtoVLMappingTableRecord" },
	{ 0x0014, "SwitchInfoRecord" },
	{ 0x0015, "LinearForwardingTableRecord" },
	{ 0x0016, "RandomForwardingTableRecord" },
	{ 0x0017, "MulticastForwardingTableRecord" },
	{ 0x0018, "SMInfoRecord" },
	{ 0x0019, "LinkSpeedWidthPairsTableRecord" },
	{ 0x00f3, "InformInfoRecord" },
	{ 0x0020, "LinkRecord" },
	{ 0x0030, "GuidInfoRecord" },
	{ 0x0031, "ServiceRecord" },
	{ 0x0033, "P_KeyTableRecord" },
	{ 0x0035, "PathRecord" },
	{ 0x0036, "VLArbitrationTableRecord" },
	{ 0x0038, "MCMemberRecord" },
	{ 0x0039, "TraceRecord" },
	{ 0x003a, "MultiPathRecord" },
	{ 0x003b, "ServiceAssociationRecord" },
	{ 0x003c, "HierarchyInfoRecord" },
	{ 0x003d, "CableInfoRecord" },
	{ 0x003e, "PortInfoExtendedRecord" },
};

static const struct name cm_attrs[] = {
	{ 0x0010, "ConnectRequest" },
	{ 0x0011, "MsgRcptAck" },
	{ 0x0012, "ConnectReject" },
	{ 0x0013, "ConnectReply" },
	{ 0x0014, "ReadyToUse" },
	{ 0x0015, "DisconnectRequest" },
	{ 0x0016, "DisconnectReply" },
	{ 0x0017, "ServiceIDResReq" },
	{ 0x0018, "ServiceIDResReqResp" },
	{ 0x0019, "LoadAlternatePath" },
	{ 0x001a, "AlternatePathResponse" },
	{ 0x001b, "SuggestAlternatePath" },
	{ 0x001c, "SuggestPathResponse" },
};

UMAD_EXPORT const char *
umad_attribute_str(uint8_t mgmt_class, __be16 attr_id)
{
	uint16_t id = be16toh(attr_id);
	const char *s = NULL;

	switch (mgmt_class) {
	case 0x01:
	case 0x81:
		s = find(sm_attrs, DIM(sm_attrs), id, NULL);
		break;
	case 0x03:
		s = find(sa_attrs, DIM(sa_attrs), id, NULL);
		break;
	case 0x07:
		s = find(cm_attrs, DIM(cm_attrs), id, NULL);
		break;
	default:
		break;
	}
	return s ? s : find(common_attrs, DIM(common_attrs), id, "<unknown>");
}
