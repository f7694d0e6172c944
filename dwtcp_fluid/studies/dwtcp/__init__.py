"""DWTCP ([DWTCP]): the stability condition, its linearizations, the Scout-faithful busy-period model, tuning, and the packet law's truth."""
