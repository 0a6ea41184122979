{
  "targets": [
    {
      "target_name": "clawloop_native",
      "sources": ["src/addon.cc", "src/gemm.cc", "src/napiUtil.cc", "src/threadPool.cc", "src/tile.cc", "src/copyKernels.cc", "src/unaryKernels.cc", "src/elementwise.cc", "src/tensorBuf.cc", "src/fileMap.cc", "src/ndPlan.cc", "src/ndElementwise.cc", "src/ndReduce.cc", "src/ndLayout.cc", "src/halfGemm.cc", "src/halfGemmPacked.cc", "src/cpuInfo.cc", "src/ndApiStorage.cc", "src/ndApiMath.cc", "src/ndApiLayout.cc", "src/ndApiFused.cc", "src/vocabStats.cc", "src/fusedLayers.cc", "src/halfGemv.cc", "src/halfGemvAvx2.cc", "src/halfGemvAvx512.cc", "src/memBandwidth.cc", "src/ndApiGemv.cc", "src/tileGemm.cc", "src/flashAttentionForward.cc", "src/flashAttentionBackward.cc"],
      "cflags_cc": ["-O3", "-std=c++17", "-fno-exceptions", "-fno-math-errno", "-fno-trapping-math", "<!(node -p \"process.env.CLAWLOOP_NATIVE_MARCH || '-march=native'\")"],
      "cflags_cc!": ["-fno-rtti"],
      "conditions": [
        ["OS=='linux'", {
          "include_dirs": ["/usr/include/x86_64-linux-gnu/openblas-pthread", "/usr/include/aarch64-linux-gnu/openblas-pthread", "/usr/include/openblas"],
          "libraries": ["-lopenblas"],
          "defines": ["CLAWLOOP_OPENBLAS=1"]
        }],
        ["OS=='mac'", {
          "libraries": ["-framework Accelerate"],
          "defines": ["CLAWLOOP_ACCELERATE=1", "ACCELERATE_NEW_LAPACK=1"],
          "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": ["-O3", "-std=c++17"] }
        }]
      ]
    }
  ]
}
