"""Package data (controller.data.firmware): read through controller.data, never imported."""
