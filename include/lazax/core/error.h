// Error hierarchy. Every error lazax raises is a lazax::Error whose message starts with
// "[op or component]", names the shapes, dtypes or file position involved, and says what to do.
#pragma once
#include <stdexcept>
#include <string>

namespace lazax {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg), message_(msg) {}
  const char* what() const noexcept override { return message_.c_str(); }
  // Appends a line to the message, as Python's add_note: where the error happened (the
  // function being traced when it was raised). `throw;` after it keeps the error's type.
  void add_note(const std::string& note) { message_ += "\n  " + note; }

 private:
  std::string message_;
};

// A program or an op was given operands whose shapes do not fit its rule.
class ShapeError : public Error {
  using Error::Error;
};
// Wrong dtype for an op or an input.
class DTypeError : public Error {
  using Error::Error;
};
// A bad argument value (index out of range, bad attribute, wrong input count...).
class ValueError : public Error {
  using Error::Error;
};
// A tensor buffer could not be allocated: names the bytes asked for and, where known, the op
// whose result needed them.
class OutOfMemoryError : public Error {
  using Error::Error;
};
// Reading or writing a file failed, or a file is malformed.
class IOError : public Error {
  using Error::Error;
};
// A program failed verification (a bug in whoever built it, or a hand-written file).
class VerifyError : public Error {
  using Error::Error;
};
// A value cannot be differentiated (while under reverse mode, integer inputs of grad...).
class NotDifferentiableError : public Error {
  using Error::Error;
};
// A traced value was needed on the host inside a trace.
class ConcretizationError : public Error {
  using Error::Error;
};
// `if (t)` on a traced value.
class TracerBoolConversionError : public ConcretizationError {
  using ConcretizationError::ConcretizationError;
};
// A tracer was used after its trace ended.
class LeakedTracerError : public Error {
  using Error::Error;
};
// A function declared pure traced to a different program on a later call.
class ImpureFunctionError : public Error {
  using Error::Error;
};
// The processes of a distributed run disagree (a different collective, shape or dtype on another
// rank), or one of them stopped answering: names the ranks and what each ran.
class DistError : public Error {
  using Error::Error;
};
// Something is not implemented yet (says what and what to use instead).
class UnimplementedError : public Error {
  using Error::Error;
};

// Malformed program text: carries the 1-based line and column.
class ParseError : public Error {
 public:
  ParseError(const std::string& msg, int line, int column)
      : Error("[parse] line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
              msg),
        line_(line),
        column_(column) {}
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  int line_;
  int column_;
};

}  // namespace lazax
