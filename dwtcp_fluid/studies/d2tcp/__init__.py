"""D2TCP ([D2TCP]): the deadline-imminence penalty in DCTCP's model, its limit cycle against d, and deadlines met."""
