// The flow document model, checker and runner live here (see issue "Contracts and flows").
