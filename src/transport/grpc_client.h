/* transport/grpc_client.h -- unary gRPC calls over a unix socket: the kubelet's
 * pod-resources API.
 *
 * HTTP/2 is nghttp2's, driven through libcurl (h2c with prior knowledge on the
 * socket): the agent already links both for the kubelet and Docker sources, so
 * gRPC costs no new run-time library.  This file only frames the message
 * (gRPC's 5-byte length prefix) and reads grpc-status/grpc-message from the
 * headers or trailers.  The messages themselves are protobuf-c's.
 *
 * Every call has a deadline: sent to the server as grpc-timeout and enforced
 * here (connect and whole call).  A client is used by one thread at a time. */
#ifndef PNA_TRANSPORT_GRPC_CLIENT_H
#define PNA_TRANSPORT_GRPC_CLIENT_H

#include <stddef.h>
#include <stdint.h>

struct pna_grpc_client;

/* NULL when libcurl cannot be set up or has no HTTP/2. */
struct pna_grpc_client *pna_grpc_client_new(void);
void pna_grpc_client_free(struct pna_grpc_client *c);

/* Call METHOD ("/v1.PodResourcesLister/List") on the server at unix socket
 * SOCKET_PATH with the serialized request REQ (REQ_LEN bytes, may be 0).
 * Returns 0 with the malloc'd serialized response in *RESP (caller frees;
 * non-NULL even when empty) and its length in *RESP_LEN, at most MAX_BYTES.
 * Otherwise -1 and one line in ERR, e.g.
 *   "connect /var/lib/kubelet/pod-resources/kubelet.sock: No such file or directory"
 *   "timed out after 2000 ms"
 *   "grpc-status 12 (UNIMPLEMENTED): unknown method List"
 *   "HTTP 404", "malformed gRPC frame", "response over 16777216 bytes",
 *   "compressed gRPC message (not asked for)", "no grpc-status". */
int pna_grpc_unary(struct pna_grpc_client *c, const char *socket_path, const char *method,
                   const uint8_t *req, size_t req_len, unsigned timeout_ms, size_t max_bytes,
                   uint8_t **resp, size_t *resp_len, char *err, size_t errlen);

/* The grpc-status the server sent in the last call of C (0 OK, 12
 * UNIMPLEMENTED, ...), or -1 when that call got none (it failed before or
 * without one: connect, timeout, malformed frame, HTTP error). */
int pna_grpc_last_status(const struct pna_grpc_client *c);
#define PNA_GRPC_UNIMPLEMENTED 12

/* "UNIMPLEMENTED" for 12; names for 0..16, "unknown code" otherwise. */
const char *pna_grpc_status_name(int status);

#endif
