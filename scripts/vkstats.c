// vkstats: compiles SPIR-V compute shaders (as Dawn emits them: entry point "dawn_entry_point")
// on the first Vulkan device and prints the driver's statistics for each (register count,
// spills, ... where the driver reports them: VK_KHR_pipeline_executable_properties). Dawn gives
// no such figures, and the radix sort's speed hangs on register use (docs/performance.md).
//
//   gcc -O2 -o vkstats scripts/vkstats.c -ldl      (needs the Vulkan headers: libvulkan-dev)
//   ./vkstats a.spv b.spv ...
//
// The SPIR-V comes from Dawn's dump_shaders toggle (scripts/dump-spirv.mjs) assembled with
// spirv-as. Descriptor bindings are read from the module's decorations.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#define CHECK(x) do { VkResult r_ = (x); if (r_ != VK_SUCCESS) { fprintf(stderr, "%s failed: %d\n", #x, r_); exit(1); } } while (0)

static PFN_vkGetInstanceProcAddr gipa;
#define IFN(name) PFN_##name name = (PFN_##name)gipa(inst, #name)

static unsigned char *readFile(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(*size);
  if (fread(b, 1, *size, f) != *size) { perror(path); exit(1); }
  fclose(f);
  return b;
}

// Bindings of set 0: for each binding number, 1 uniform buffer, 2 storage buffer, 0 none.
static void bindingsOf(const uint32_t *w, size_t words, int kinds[32]) {
  static int binding[1 << 20], storage[1 << 20];
  memset(binding, -1, sizeof binding);
  memset(storage, 0, sizeof storage);
  memset(kinds, 0, 32 * sizeof(int));
  for (size_t i = 5; i < words;) {
    uint32_t op = w[i] & 0xffff, n = w[i] >> 16;
    if (n == 0) break;
    if (op == 71 && w[i + 2] == 33 && w[i + 1] < (1 << 20)) binding[w[i + 1]] = (int)w[i + 3];  // OpDecorate Binding
    if (op == 59 && w[i + 2] < (1 << 20)) storage[w[i + 2]] = (int)w[i + 3];                     // OpVariable
    i += n;
  }
  for (int id = 0; id < (1 << 20); id++) {
    if (binding[id] < 0 || binding[id] >= 32) continue;
    kinds[binding[id]] = storage[id] == 2 ? 1 : storage[id] == 12 ? 2 : 0;
  }
}

int main(int argc, char **argv) {
  void *lib = dlopen("libvulkan.so.1", RTLD_NOW);
  if (!lib) { fprintf(stderr, "no libvulkan.so.1: %s\n", dlerror()); return 1; }
  gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
  VkInstance inst = VK_NULL_HANDLE;
  PFN_vkCreateInstance vkCreateInstance = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
  VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3 };
  VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app };
  CHECK(vkCreateInstance(&ici, NULL, &inst));
  IFN(vkEnumeratePhysicalDevices);
  IFN(vkGetPhysicalDeviceProperties);
  IFN(vkEnumerateDeviceExtensionProperties);
  IFN(vkCreateDevice);
  IFN(vkGetDeviceProcAddr);
  uint32_t n = 1;
  VkPhysicalDevice pd;
  VkResult er = vkEnumeratePhysicalDevices(inst, &n, &pd);
  if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || n == 0) { fprintf(stderr, "no Vulkan device\n"); return 1; }
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(pd, &props);
  printf("device: %s\n", props.deviceName);
  uint32_t ne = 0;
  vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, NULL);
  VkExtensionProperties *exts = calloc(ne, sizeof *exts);
  vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, exts);
  // Dawn's maximal reconvergence mode is stripped from the SPIR-V (this spirv-as predates it).
  const char *want[] = { "VK_KHR_pipeline_executable_properties", "VK_EXT_robustness2" };
  const char *enabled[2];
  int ecount = 0, haveRobust2 = 0;
  for (int k = 0; k < 2; k++) {
    for (uint32_t e = 0; e < ne; e++) {
      if (strcmp(exts[e].extensionName, want[k]) == 0) {
        enabled[ecount++] = want[k];
        if (k == 1) haveRobust2 = 1;
      }
    }
  }
  VkPhysicalDeviceRobustness2FeaturesEXT robust2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT, .robustBufferAccess2 = VK_TRUE };
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pexec = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR, .pipelineExecutableInfo = VK_TRUE,
    .pNext = haveRobust2 ? (void *)&robust2 : NULL };
  VkPhysicalDeviceVulkan13Features f13 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, .pNext = &pexec, .subgroupSizeControl = VK_TRUE, .computeFullSubgroups = VK_TRUE };
  VkPhysicalDeviceVulkan12Features f12 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f13, .vulkanMemoryModel = VK_TRUE, .vulkanMemoryModelDeviceScope = VK_TRUE,
    .shaderFloat16 = VK_TRUE, .shaderSubgroupExtendedTypes = VK_TRUE };
  VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12 };
  f2.features.robustBufferAccess = VK_TRUE;
  f2.features.shaderInt64 = VK_TRUE;
  float prio = 1;
  VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1, .pQueuePriorities = &prio };
  VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f2, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci, .enabledExtensionCount = (uint32_t)ecount, .ppEnabledExtensionNames = enabled };
  VkDevice dev;
  CHECK(vkCreateDevice(pd, &dci, NULL, &dev));
#define DFN(name) PFN_##name name = (PFN_##name)vkGetDeviceProcAddr(dev, #name)
  DFN(vkCreateShaderModule);
  DFN(vkCreateDescriptorSetLayout);
  DFN(vkCreatePipelineLayout);
  DFN(vkCreateComputePipelines);
  DFN(vkGetPipelineExecutablePropertiesKHR);
  DFN(vkGetPipelineExecutableStatisticsKHR);
  DFN(vkDestroyPipeline);
  if (!vkGetPipelineExecutablePropertiesKHR) { fprintf(stderr, "no VK_KHR_pipeline_executable_properties\n"); return 1; }
  for (int a = 1; a < argc; a++) {
    size_t size;
    unsigned char *code = readFile(argv[a], &size);
    int kinds[32];
    bindingsOf((const uint32_t *)code, size / 4, kinds);
    VkDescriptorSetLayoutBinding b[32];
    uint32_t nb = 0;
    for (int i = 0; i < 32; i++) {
      if (!kinds[i]) continue;
      b[nb++] = (VkDescriptorSetLayoutBinding){ .binding = (uint32_t)i, .descriptorType = kinds[i] == 1 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT };
    }
    VkDescriptorSetLayoutCreateInfo dl = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = nb, .pBindings = b };
    VkDescriptorSetLayout dsl;
    CHECK(vkCreateDescriptorSetLayout(dev, &dl, NULL, &dsl));
    VkPipelineLayoutCreateInfo pl = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &dsl };
    VkPipelineLayout layout;
    CHECK(vkCreatePipelineLayout(dev, &pl, NULL, &layout));
    VkShaderModuleCreateInfo smi = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = (const uint32_t *)code };
    VkShaderModule sm;
    CHECK(vkCreateShaderModule(dev, &smi, NULL, &sm));
    VkComputePipelineCreateInfo cpi = { .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, .flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR,
      .stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = sm, .pName = "dawn_entry_point" }, .layout = layout };
    VkPipeline pipe;
    CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, NULL, &pipe));
    VkPipelineInfoKHR pinfo = { .sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipe };
    uint32_t nx = 0;
    CHECK(vkGetPipelineExecutablePropertiesKHR(dev, &pinfo, &nx, NULL));
    printf("%s:", argv[a]);
    for (uint32_t x = 0; x < nx; x++) {
      VkPipelineExecutableInfoKHR xi = { .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipe, .executableIndex = x };
      uint32_t ns = 0;
      CHECK(vkGetPipelineExecutableStatisticsKHR(dev, &xi, &ns, NULL));
      VkPipelineExecutableStatisticKHR *st = calloc(ns, sizeof *st);
      for (uint32_t s = 0; s < ns; s++) st[s].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
      CHECK(vkGetPipelineExecutableStatisticsKHR(dev, &xi, &ns, st));
      for (uint32_t s = 0; s < ns; s++) {
        printf(" %s=", st[s].name);
        switch (st[s].format) {
          case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: printf("%u", st[s].value.b32); break;
          case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: printf("%lld", (long long)st[s].value.i64); break;
          case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: printf("%llu", (unsigned long long)st[s].value.u64); break;
          default: printf("%g", st[s].value.f64);
        }
      }
      free(st);
    }
    printf("\n");
    fflush(stdout);
    vkDestroyPipeline(dev, pipe, NULL);
    free(code);
  }
  return 0;
}
