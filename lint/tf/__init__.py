"""TensorFlow semantics, without I/O: nodes, inputs, the graph index, op registry, attrs, op signatures,
tensors, devices, functions, SavedModel serving facts and shape inference."""
