// Tests for in-process components.
