"""Package data (controller.data.docs): read through controller.data, never imported."""
