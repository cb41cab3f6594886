"""``python -m controller.bench.solver``, as ``diablotin bench solver``."""

from controller.bench.solver import main

raise SystemExit(main())
