/* Prefetch and advice for managed memory through the CUDA 13 cudaMemLocation API, building with
 * CUDA 12 too. CUDA 13 changed the signatures: cudaMemPrefetchAsync(ptr, bytes, location, flags,
 * stream) and cudaMemAdvise(ptr, bytes, advice, location), where CUDA 12 took an int device
 * (cudaCpuDeviceId for the host). Call these two wrappers and they pick the right one.
 * CUDA 12.2 or newer (the first with cudaMemLocationTypeHost). */
#ifndef CML_UM_H
#define CML_UM_H

#include <cuda_runtime.h>

/* Where a range should go: GPU `device`, or the host. */
static inline cudaMemLocation cml_loc_device(int device)
{
    cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = device;
    return loc;
}

static inline cudaMemLocation cml_loc_host(void)
{
    cudaMemLocation loc;
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0; /* ignored for the host */
    return loc;
}

static inline cudaError_t cml_mem_prefetch(const void *ptr, size_t bytes, cudaMemLocation loc,
                                           cudaStream_t stream)
{
#if CUDART_VERSION >= 13000
    return cudaMemPrefetchAsync(ptr, bytes, loc, 0, stream);
#else
    return cudaMemPrefetchAsync(ptr, bytes,
                                loc.type == cudaMemLocationTypeDevice ? loc.id : cudaCpuDeviceId,
                                stream);
#endif
}

static inline cudaError_t cml_mem_advise(const void *ptr, size_t bytes, cudaMemoryAdvise advice,
                                         cudaMemLocation loc)
{
#if CUDART_VERSION >= 13000
    return cudaMemAdvise(ptr, bytes, advice, loc);
#else
    return cudaMemAdvise(ptr, bytes, advice,
                         loc.type == cudaMemLocationTypeDevice ? loc.id : cudaCpuDeviceId);
#endif
}

#endif /* CML_UM_H */
