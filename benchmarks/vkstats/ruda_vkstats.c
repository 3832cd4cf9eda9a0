/* A Vulkan layer that records what the driver made of each compute pipeline: the statistics
 * (registers, spills, ...) and internal representations that VK_KHR_pipeline_executable_properties
 * reports, and optionally the SPIR-V the application handed over (wgpu's, from naga).
 *
 * wgpu neither enables that extension nor asks for the statistics, so the layer does both: it
 * adds the extension and its feature to vkCreateDevice where the device offers it, sets the
 * capture flags on every vkCreateComputePipelines, and writes what it gets back under
 * $RUDA_VKSTATS_OUT (stats.tsv: entry point, executable, statistic, value; one text file per
 * internal representation; with RUDA_VKSTATS_SPIRV=1, each module's SPIR-V). Built and enabled
 * by benchmarks/vkstats/build.sh; read by benchmarks/wgpu_pipeline_stats.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_OBJECTS 16
#define EXT VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME

typedef struct {
  VkInstance instance;
  PFN_vkGetInstanceProcAddr gipa;
  PFN_vkDestroyInstance destroy;
  PFN_vkEnumerateDeviceExtensionProperties enum_exts;
} Inst;

typedef struct {
  VkDevice device;
  int capture; /* the extension was enabled: ask for statistics */
  PFN_vkGetDeviceProcAddr gdpa;
  PFN_vkDestroyDevice destroy;
  PFN_vkCreateShaderModule create_module;
  PFN_vkCreateComputePipelines create_compute;
  PFN_vkGetPipelineExecutablePropertiesKHR props;
  PFN_vkGetPipelineExecutableStatisticsKHR stats;
  PFN_vkGetPipelineExecutableInternalRepresentationsKHR reprs;
} Dev;

static Inst insts[MAX_OBJECTS];
static Dev devs[MAX_OBJECTS];
static unsigned modules_seen;

/* dispatchable handles begin with the loader's dispatch table pointer: one key per object */
static void *key(const void *handle) { return *(void *const *)handle; }

static Inst *inst_of(const void *h) {
  for (int i = 0; i < MAX_OBJECTS; i++)
    if (insts[i].instance && key(insts[i].instance) == key(h)) return &insts[i];
  return NULL;
}

static Dev *dev_of(const void *h) {
  for (int i = 0; i < MAX_OBJECTS; i++)
    if (devs[i].device && key(devs[i].device) == key(h)) return &devs[i];
  return NULL;
}

static FILE *out_file(const char *name, const char *mode) {
  const char *dir = getenv("RUDA_VKSTATS_OUT");
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : ".", name);
  FILE *f = fopen(path, mode);
  if (!f) fprintf(stderr, "ruda_vkstats: cannot write %s\n", path);
  return f;
}

static void safe_name(char *dst, size_t n, const char *src) {
  size_t i = 0;
  for (; src[i] && i + 1 < n; i++) {
    char c = src[i];
    dst[i] = (c == '/' || c == ' ' || c == '\t' || c == '\n') ? '_' : c;
  }
  dst[i] = 0;
}

static VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo *ci,
                                          const VkAllocationCallbacks *alloc, VkInstance *out) {
  VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
                   link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerInstanceCreateInfo *)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext; /* the next layer sees its own link */
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
  VkResult r = create(ci, alloc, out);
  if (r != VK_SUCCESS) return r;
  for (int i = 0; i < MAX_OBJECTS; i++)
    if (!insts[i].instance) {
      insts[i] = (Inst){*out, gipa, (PFN_vkDestroyInstance)gipa(*out, "vkDestroyInstance"),
                        (PFN_vkEnumerateDeviceExtensionProperties)gipa(
                            *out, "vkEnumerateDeviceExtensionProperties")};
      return r;
    }
  fprintf(stderr, "ruda_vkstats: more than %d instances; not tracking this one\n", MAX_OBJECTS);
  return r;
}

static void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc) {
  Inst *in = inst_of(instance);
  if (!in) return;
  PFN_vkDestroyInstance destroy = in->destroy;
  memset(in, 0, sizeof *in);
  destroy(instance, alloc);
}

static int offers(Inst *in, VkPhysicalDevice pd) {
  uint32_t n = 0;
  if (in->enum_exts(pd, NULL, &n, NULL) != VK_SUCCESS || !n) return 0;
  VkExtensionProperties *e = calloc(n, sizeof *e);
  int found = 0;
  if (e && in->enum_exts(pd, NULL, &n, e) == VK_SUCCESS)
    for (uint32_t i = 0; i < n; i++) found |= !strcmp(e[i].extensionName, EXT);
  free(e);
  return found;
}

static VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                        const VkAllocationCallbacks *alloc, VkDevice *out) {
  VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)ci->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
                   link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerDeviceCreateInfo *)link->pNext;
  Inst *in = inst_of(pd);
  if (!link || !in) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(in->instance, "vkCreateDevice");

  VkDeviceCreateInfo mine = *ci;
  int enable = offers(in, pd), already = 0;
  for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
    already |= !strcmp(ci->ppEnabledExtensionNames[i], EXT);
  const char **names = NULL;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR feature = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
      (void *)ci->pNext, VK_TRUE};
  if (enable && !already) {
    names = calloc(ci->enabledExtensionCount + 1, sizeof *names);
    if (!names) return VK_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(names, ci->ppEnabledExtensionNames, ci->enabledExtensionCount * sizeof *names);
    names[ci->enabledExtensionCount] = EXT;
    mine.enabledExtensionCount = ci->enabledExtensionCount + 1;
    mine.ppEnabledExtensionNames = names;
    mine.pNext = &feature;
  }
  if (!enable) fprintf(stderr, "ruda_vkstats: the device does not offer %s\n", EXT);
  VkResult r = create(pd, &mine, alloc, out);
  free(names);
  if (r != VK_SUCCESS) return r;
  for (int i = 0; i < MAX_OBJECTS; i++)
    if (!devs[i].device) {
      Dev *d = &devs[i];
      d->device = *out;
      d->gdpa = gdpa;
      d->destroy = (PFN_vkDestroyDevice)gdpa(*out, "vkDestroyDevice");
      d->create_module = (PFN_vkCreateShaderModule)gdpa(*out, "vkCreateShaderModule");
      d->create_compute = (PFN_vkCreateComputePipelines)gdpa(*out, "vkCreateComputePipelines");
      d->props = (PFN_vkGetPipelineExecutablePropertiesKHR)gdpa(
          *out, "vkGetPipelineExecutablePropertiesKHR");
      d->stats = (PFN_vkGetPipelineExecutableStatisticsKHR)gdpa(
          *out, "vkGetPipelineExecutableStatisticsKHR");
      d->reprs = (PFN_vkGetPipelineExecutableInternalRepresentationsKHR)gdpa(
          *out, "vkGetPipelineExecutableInternalRepresentationsKHR");
      d->capture = enable && d->props && d->stats && d->reprs;
      return r;
    }
  fprintf(stderr, "ruda_vkstats: more than %d devices; not tracking this one\n", MAX_OBJECTS);
  return r;
}

static void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc) {
  Dev *d = dev_of(device);
  if (!d) return;
  PFN_vkDestroyDevice destroy = d->destroy;
  memset(d, 0, sizeof *d);
  destroy(device, alloc);
}

static VkResult VKAPI_CALL CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo *ci,
                                              const VkAllocationCallbacks *alloc,
                                              VkShaderModule *out) {
  Dev *d = dev_of(device);
  if (!d) return VK_ERROR_INITIALIZATION_FAILED;
  const char *want = getenv("RUDA_VKSTATS_SPIRV");
  if (want && !strcmp(want, "1")) {
    char name[64];
    snprintf(name, sizeof name, "module_%04u.spv", modules_seen++);
    FILE *f = out_file(name, "wb");
    if (f) {
      fwrite(ci->pCode, 1, ci->codeSize, f);
      fclose(f);
    }
  }
  return d->create_module(device, ci, alloc, out);
}

static void record(Dev *d, VkPipeline pipe, const char *entry) {
  VkPipelineInfoKHR pi = {VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, NULL, pipe};
  uint32_t n = 0;
  if (d->props(d->device, &pi, &n, NULL) != VK_SUCCESS || !n) return;
  VkPipelineExecutablePropertiesKHR *ps = calloc(n, sizeof *ps);
  if (!ps) return;
  for (uint32_t i = 0; i < n; i++) ps[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  FILE *tsv = out_file("stats.tsv", "a");
  if (tsv && d->props(d->device, &pi, &n, ps) == VK_SUCCESS) {
    for (uint32_t e = 0; e < n; e++) {
      VkPipelineExecutableInfoKHR ei = {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, NULL, pipe,
                                        e};
      fprintf(tsv, "%s\t%s\tsubgroup size\t%u\n", entry, ps[e].name, ps[e].subgroupSize);
      uint32_t ns = 0;
      d->stats(d->device, &ei, &ns, NULL);
      VkPipelineExecutableStatisticKHR *st = calloc(ns ? ns : 1, sizeof *st);
      for (uint32_t i = 0; st && i < ns; i++)
        st[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
      if (st && d->stats(d->device, &ei, &ns, st) == VK_SUCCESS)
        for (uint32_t i = 0; i < ns; i++) {
          fprintf(tsv, "%s\t%s\t%s\t", entry, ps[e].name, st[i].name);
          switch (st[i].format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
              fprintf(tsv, "%u\n", st[i].value.b32);
              break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
              fprintf(tsv, "%lld\n", (long long)st[i].value.i64);
              break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
              fprintf(tsv, "%llu\n", (unsigned long long)st[i].value.u64);
              break;
            default:
              fprintf(tsv, "%g\n", st[i].value.f64);
          }
        }
      free(st);
      uint32_t nr = 0;
      d->reprs(d->device, &ei, &nr, NULL);
      VkPipelineExecutableInternalRepresentationKHR *rs = calloc(nr ? nr : 1, sizeof *rs);
      for (uint32_t i = 0; rs && i < nr; i++)
        rs[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR;
      if (rs && d->reprs(d->device, &ei, &nr, rs) == VK_SUCCESS) {
        for (uint32_t i = 0; i < nr; i++) { /* sizes known: fetch the data itself */
          rs[i].pData = calloc(rs[i].dataSize + 1, 1);
          if (!rs[i].pData) rs[i].dataSize = 0;
        }
        if (d->reprs(d->device, &ei, &nr, rs) == VK_SUCCESS || nr)
          for (uint32_t i = 0; i < nr; i++) {
            char a[128], b[128], fname[512];
            safe_name(a, sizeof a, entry);
            safe_name(b, sizeof b, rs[i].name);
            snprintf(fname, sizeof fname, "%s.%u.%s.%s", a, e, b, rs[i].isText ? "txt" : "bin");
            FILE *f = out_file(fname, "wb");
            if (f) {
              fwrite(rs[i].pData, 1, rs[i].dataSize, f);
              fclose(f);
            }
            fprintf(tsv, "%s\t%s\trepresentation\t%s (%zu bytes)\n", entry, ps[e].name,
                    rs[i].name, rs[i].dataSize);
          }
        for (uint32_t i = 0; i < nr; i++) free(rs[i].pData);
      }
      free(rs);
    }
  }
  if (tsv) fclose(tsv);
  free(ps);
}

static VkResult VKAPI_CALL CreateComputePipelines(VkDevice device, VkPipelineCache cache,
                                                  uint32_t n,
                                                  const VkComputePipelineCreateInfo *cis,
                                                  const VkAllocationCallbacks *alloc,
                                                  VkPipeline *out) {
  Dev *d = dev_of(device);
  if (!d) return VK_ERROR_INITIALIZATION_FAILED;
  if (!d->capture) return d->create_compute(device, cache, n, cis, alloc, out);
  VkComputePipelineCreateInfo *mine = calloc(n ? n : 1, sizeof *mine);
  if (!mine) return VK_ERROR_OUT_OF_HOST_MEMORY;
  for (uint32_t i = 0; i < n; i++) {
    mine[i] = cis[i];
    mine[i].flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
                     VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  }
  VkResult r = d->create_compute(device, cache, n, mine, alloc, out);
  if (r == VK_SUCCESS)
    for (uint32_t i = 0; i < n; i++) record(d, out[i], cis[i].stage.pName);
  free(mine);
  return r;
}

static PFN_vkVoidFunction device_hook(const char *name);

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL ruda_GetDeviceProcAddr(VkDevice device,
                                                                      const char *name) {
  PFN_vkVoidFunction f = device_hook(name);
  if (f) return f;
  Dev *d = dev_of(device);
  return d ? d->gdpa(device, name) : NULL;
}

static PFN_vkVoidFunction device_hook(const char *name) {
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)ruda_GetDeviceProcAddr;
  if (!strcmp(name, "vkDestroyDevice")) return (PFN_vkVoidFunction)DestroyDevice;
  if (!strcmp(name, "vkCreateShaderModule")) return (PFN_vkVoidFunction)CreateShaderModule;
  if (!strcmp(name, "vkCreateComputePipelines"))
    return (PFN_vkVoidFunction)CreateComputePipelines;
  return NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL ruda_GetInstanceProcAddr(VkInstance instance,
                                                                        const char *name) {
  if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)ruda_GetInstanceProcAddr;
  if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)CreateInstance;
  if (!strcmp(name, "vkDestroyInstance")) return (PFN_vkVoidFunction)DestroyInstance;
  if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)CreateDevice;
  PFN_vkVoidFunction f = device_hook(name);
  if (f) return f;
  Inst *in = instance ? inst_of(instance) : NULL;
  return in ? in->gipa(instance, name) : NULL;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v) {
  if (v->loaderLayerInterfaceVersion > 2) v->loaderLayerInterfaceVersion = 2;
  v->pfnGetInstanceProcAddr = ruda_GetInstanceProcAddr;
  v->pfnGetDeviceProcAddr = ruda_GetDeviceProcAddr;
  v->pfnGetPhysicalDeviceProcAddr = NULL;
  return VK_SUCCESS;
}
