// The MLP of the .pt corpus from C++ through ember.hpp: RAII values and models, errors as
// exceptions. Reads a float32 input of shape [ROWS, 8] from a raw file, prints the result's
// elements one per line.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "ember.hpp"
#include "mlp.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cpp_mlp INPUT.raw ROWS\n");
    return 2;
  }
  try {
    std::ifstream in(argv[1], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<float> x(bytes.size() / sizeof(float));
    std::copy(bytes.begin(), bytes.begin() + x.size() * sizeof(float), reinterpret_cast<char *>(x.data()));
    const int64_t rows = std::atoll(argv[2]);
    ember::Model model(mlp, MLP_WEIGHTS);
    ember::Value input = ember::Value::wrap(x.data(), EMBER_FLOAT32, {rows, 8});
    ember::Value out = model.run({&input});
    const float *data = out.data<float>();
    for (int64_t i = 0; i < out.numel(); i++) std::printf("%.9g\n", data[i]);
  } catch (const ember::Error &e) {
    std::fprintf(stderr, "cpp_mlp: %s\n", e.what());
    return 1;
  }
  return 0;
}
