// Internal: the header of a .npy file, a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lazax::npy {

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Parses the dict; throws IOError("[npy] FILE: bad header: ...") when it is not one NumPy writes.
Header parse_header_dict(std::string_view text, const std::string& file);

// The dict as numpy.save formats it, without the padding and the final newline.
std::string format_header_dict(std::string_view descr, const std::vector<int64_t>& shape);

}  // namespace lazax::npy
