/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets are not carried: every call fails at once with ENOSYS, so an
 * application sees it cannot use them (rsocket() is the first it makes).
 * rpoll() and rselect(), which rping, ucmatose, udaddy, cmtime and mckey
 * call on ordinary fds, are poll() and select(): with no rsocket in the
 * process, that is what rdma-core's are too.
 */
#include <errno.h>
#include <poll.h>
#include <sys/select.h>

#include <rdma/rsocket.h>

#include "rdmacm_priv.h"

CMA_EXPORT int
rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return poll(fds, nfds, timeout);
}

CMA_EXPORT int
rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
	struct timeval *timeout)
{
	return select(nfds, readfds, writefds, exceptfds, timeout);
}

CMA_EXPORT int
rsocket(int domain, int type, int protocol)
{
	(void)domain;
	(void)type;
	(void)protocol;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rlisten(int socket, int backlog)
{
	(void)socket;
	(void)backlog;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rshutdown(int socket, int how)
{
	(void)socket;
	(void)how;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rclose(int socket)
{
	(void)socket;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rrecv(int socket, void *buf, size_t len, int flags)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)flags;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rrecvfrom(int socket, void *buf, size_t len, int flags,
	  struct sockaddr *src_addr, socklen_t *addrlen)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)flags;
	(void)src_addr;
	(void)addrlen;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	(void)socket;
	(void)msg;
	(void)flags;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rsend(int socket, const void *buf, size_t len, int flags)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)flags;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rsendto(int socket, const void *buf, size_t len, int flags,
	const struct sockaddr *dest_addr, socklen_t addrlen)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)flags;
	(void)dest_addr;
	(void)addrlen;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	(void)socket;
	(void)msg;
	(void)flags;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rread(int socket, void *buf, size_t count)
{
	(void)socket;
	(void)buf;
	(void)count;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket;
	(void)iov;
	(void)iovcnt;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rwrite(int socket, const void *buf, size_t count)
{
	(void)socket;
	(void)buf;
	(void)count;
	return cma_err(ENOSYS);
}

CMA_EXPORT ssize_t
rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	(void)socket;
	(void)iov;
	(void)iovcnt;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	(void)socket;
	(void)addr;
	(void)addrlen;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rsetsockopt(int socket, int level, int optname, const void *optval,
	    socklen_t optlen)
{
	(void)socket;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rgetsockopt(int socket, int level, int optname, void *optval,
	    socklen_t *optlen)
{
	(void)socket;
	(void)level;
	(void)optname;
	(void)optval;
	(void)optlen;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
rfcntl(int socket, int cmd, ...)
{
	(void)socket;
	(void)cmd;
	return cma_err(ENOSYS);
}

CMA_EXPORT off_t
riomap(int socket, void *buf, size_t len, int prot, int flags, off_t offset)
{
	(void)socket;
	(void)buf;
	(void)len;
	(void)prot;
	(void)flags;
	(void)offset;
	return cma_err(ENOSYS);
}

CMA_EXPORT int
riounmap(int socket, void *buf, size_t len)
{
	(void)socket;
	(void)buf;
	(void)len;
	return cma_err(ENOSYS);
}

CMA_EXPORT size_t
riowrite(int socket, const void *buf, size_t count, off_t offset, int flags)
{
	(void)socket;
	(void)buf;
	(void)count;
	(void)offset;
	(void)flags;
	errno = ENOSYS;
	return (size_t)-1;
}
