// The fast-wfc anchor of bench/bench_wfc_anchor.py: fast-wfc's overlapping model (math-fehr/fast-wfc,
// MIT, C++17) on a sample of integers, timed in process CPU time. fast-wfc itself is not in this
// repository: fetch it and build this driver against it (see bench_wfc_anchor.py):
//
//   g++ -O3 -std=c++17 -I FAST_WFC/src/include bench/fastwfc_driver.cpp \
//       FAST_WFC/src/lib/wave.cpp FAST_WFC/src/lib/propagator.cpp FAST_WFC/src/lib/wfc.cpp -o fastwfc_driver
//
// Usage: fastwfc_driver SAMPLE N SYMMETRY PERIODIC_INPUT PERIODIC_OUTPUT WIDTH HEIGHT SEED TRIES OUT
// SAMPLE is "H W" then H rows of W integers; OUT gets the first successful output the same way.
// Runs seeds SEED, SEED + 1, ... (at most TRIES; fast-wfc restarts, it does not backtrack) until one
// succeeds; prints "cpu SECONDS tries K" (the whole loop, pattern extraction included) or "failed".
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>

#include "overlapping_wfc.hpp"

int main(int argc, char **argv) {
  if (argc != 11) {
    std::cerr << "usage: fastwfc_driver SAMPLE N SYMMETRY PERIODIC_INPUT PERIODIC_OUTPUT WIDTH HEIGHT SEED "
                 "TRIES OUT\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  unsigned h = 0, w = 0;
  in >> h >> w;
  Array2D<unsigned> sample(h, w);
  for (unsigned i = 0; i < h; i++)
    for (unsigned j = 0; j < w; j++)
      in >> sample.get(i, j);
  if (!in) {
    std::cerr << "bad sample\n";
    return 2;
  }
  OverlappingWFCOptions options;
  options.pattern_size = std::stoul(argv[2]);
  options.symmetry = std::stoul(argv[3]);
  options.periodic_input = std::stoi(argv[4]) != 0;
  options.periodic_output = std::stoi(argv[5]) != 0;
  options.out_width = std::stoul(argv[6]);
  options.out_height = std::stoul(argv[7]);
  options.ground = false;
  int seed = std::stoi(argv[8]);
  int tries = std::stoi(argv[9]);
  std::clock_t start = std::clock();
  for (int k = 0; k < tries; k++) {
    OverlappingWFC<unsigned> wfc(sample, options, seed + k);
    std::optional<Array2D<unsigned>> result = wfc.run();
    if (result.has_value()) {
      double cpu = double(std::clock() - start) / CLOCKS_PER_SEC;
      std::ofstream out(argv[10]);
      out << result->height << " " << result->width << "\n";
      for (unsigned i = 0; i < result->height; i++) {
        for (unsigned j = 0; j < result->width; j++)
          out << result->get(i, j) << (j + 1 < result->width ? " " : "\n");
      }
      std::printf("cpu %.6f tries %d\n", cpu, k + 1);
      return 0;
    }
  }
  std::printf("failed\n");
  return 1;
}
