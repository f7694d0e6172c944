"""Swift ([Swift]): the packet law against its fluid model, the fixed point and the stability region."""
