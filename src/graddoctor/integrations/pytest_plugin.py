"""pytest plugin: the `graddoctor` fixture and `assert_gradients_flow`."""
